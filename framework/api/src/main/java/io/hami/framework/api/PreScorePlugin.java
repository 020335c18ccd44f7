package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * Runs once per attempt after Filter, with the feasible nodes, on the scheduling thread; writes
 * what Score needs into {@link CycleState}. Not called when only one node is feasible.
 *
 * <p>Allowed codes: {@link Code#SUCCESS}; {@link Code#SKIP} (this plugin's Score is not run for the
 * pod); {@link Code#ERROR}.
 */
public interface PreScorePlugin extends Plugin {

  Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes);
}
