package io.hami.plugins.explain;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * A plugin's finer reasons for rejecting a node, for the explain record: HAMi's device-level counts
 * such as {@code 1/4 CardInsufficientMemory} where the scheduler's message counts nodes only.
 */
@FunctionalInterface
public interface NodeDetail {

  /** No finer reasons. */
  NodeDetail NONE = (pod, node) -> List.of();

  /**
   * The node's reasons for the pod, each ending with the reason code it refines ({@code
   * "<n>/<devices> <Code>"}, or the code alone), optionally followed by a note in parentheses;
   * empty when there are none. Called on the failure path, once per node listed in the record; must
   * not throw.
   */
  List<String> reasons(Pod pod, String node);
}
