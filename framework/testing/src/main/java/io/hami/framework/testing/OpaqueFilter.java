package io.hami.framework.testing;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Status;

/**
 * A Filter plugin that passes every node and does not say what it reads (it is no {@link
 * io.hami.framework.api.FilterEquivalence}), so a profile holding it never reuses Filter verdicts:
 * the baseline to compare reuse against.
 *
 * @param name the name it is registered under
 */
public record OpaqueFilter(String name) implements FilterPlugin {
  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    return Status.success();
  }
}
