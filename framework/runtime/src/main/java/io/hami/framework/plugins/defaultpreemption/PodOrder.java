package io.hami.framework.plugins.defaultpreemption;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.PodInfo;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;

/** kube-scheduler's MoreImportantPod and pod start times. */
final class PodOrder {
  private PodOrder() {}

  /** Higher priority first, then the one that started earlier. */
  static final Comparator<Pod> MORE_IMPORTANT_FIRST =
      Comparator.comparingInt(PodInfo::priorityOf).reversed().thenComparing(PodOrder::startTime);

  /**
   * The pod's {@code status.startTime}; a pod that has not started (or reports an unreadable time)
   * counts as starting last, as kube-scheduler takes "now" for it.
   */
  static Instant startTime(Pod pod) {
    String t = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
    if (t == null || t.isEmpty()) {
      return Instant.MAX;
    }
    try {
      return Instant.parse(t);
    } catch (DateTimeParseException e) {
      return Instant.MAX;
    }
  }
}
