package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import org.jspecify.annotations.Nullable;

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

  /**
   * Like {@link #podUnschedulable(Pod, String, String)}, with the attempt's record for {@code
   * hami.io/schedule-explain}, which an implementation that writes to the API carries in the same
   * request. The default drops the record.
   *
   * @param record the encoded record, or null to leave the annotation as it is
   */
  default void podUnschedulable(Pod pod, String reason, String message, @Nullable String record) {
    podUnschedulable(pod, reason, message);
  }
}
