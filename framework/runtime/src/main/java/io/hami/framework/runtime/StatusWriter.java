package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Writes a pod's {@code PodScheduled=False} condition. Implementations are asynchronous: the
 * scheduling thread never waits on the API.
 */
@FunctionalInterface
public interface StatusWriter {

  /**
   * @param reason {@code Unschedulable} or {@code SchedulerError}
   * @param message the aggregated message
   */
  void podUnschedulable(Pod pod, String reason, String message);
}
