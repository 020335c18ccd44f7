package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;

/**
 * Runs only when no node passed Filter, on the scheduling thread, in configured order until one
 * returns success (for example preemption).
 *
 * <p>Allowed codes: {@link Code#SUCCESS} (stop, with an optional nominated node); {@link
 * Code#UNSCHEDULABLE} (try the next plugin); {@link Code#ERROR}.
 */
public interface PostFilterPlugin extends Plugin {

  /**
   * Reacts to every evaluated node having rejected the pod.
   *
   * @param filteredNodeStatuses the rejection of each node that was evaluated, by node name
   */
  PostFilterResult postFilter(CycleState state, Pod pod, Map<String, Status> filteredNodeStatuses);
}
