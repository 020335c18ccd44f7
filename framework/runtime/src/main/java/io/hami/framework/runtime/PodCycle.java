package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.queue.QueuedPodInfo;

/**
 * One pod's pass through the scheduling cycle, handed on to its binding cycle.
 *
 * @param sample whether per-plugin times are recorded in this cycle
 * @param startNanos when the cycle began ({@link System#nanoTime})
 */
record PodCycle(
    FrameworkRuntime fwk, QueuedPodInfo info, CycleState state, boolean sample, long startNanos) {

  Pod pod() {
    return info.pod();
  }
}
