package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * A Score plugin that can give its ranking before it is rounded into {@code [0, }{@link
 * #MAX_NODE_SCORE}{@code ]}. In a profile whose {@code primaryScore} names the plugin, the runtime
 * orders nodes by these values, so two nodes the rounding would tie stay apart; elsewhere only
 * {@link #score} is called.
 */
public interface ExactScorePlugin extends ScorePlugin {

  /**
   * The node's score without rounding; higher is preferred, in the same order as {@link #score}.
   */
  double exactScore(CycleState state, Pod pod, NodeInfo node);
}
