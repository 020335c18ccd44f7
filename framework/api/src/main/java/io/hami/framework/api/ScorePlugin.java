package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Ranks a feasible node. Called once per feasible node, concurrently for different nodes on the
 * parallelizer; reads only its arguments. Not called when only one node is feasible.
 *
 * <p>A score is in {@code [0, }{@link #MAX_NODE_SCORE}{@code ]} after {@link
 * ScoreExtensions#normalizeScore} (when the plugin implements it); the runtime then multiplies it
 * by the plugin's weight. Scoring has no rejections: throw for an unexpected failure, and the
 * runtime turns it into {@link Status#error(Throwable)}.
 */
public interface ScorePlugin extends Plugin {

  long MAX_NODE_SCORE = 100;
  long MIN_NODE_SCORE = 0;

  long score(CycleState state, Pod pod, NodeInfo node);
}
