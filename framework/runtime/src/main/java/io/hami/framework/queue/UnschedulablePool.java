package io.hami.framework.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The pods waiting for a cluster event, by UID in the order they came; a pod left there longer than
 * {@code maxInUnschedulable} is retried anyway.
 *
 * <p>Not thread-safe: the scheduling queue's lock guards it.
 */
final class UnschedulablePool {
  private final Map<String, QueuedPodInfo> pods = new LinkedHashMap<>();
  private final Duration maxInUnschedulable;

  UnschedulablePool(Duration maxInUnschedulable) {
    this.maxInUnschedulable = maxInUnschedulable;
  }

  void put(QueuedPodInfo info) {
    pods.put(info.uid(), info);
  }

  @Nullable QueuedPodInfo remove(String uid) {
    return pods.remove(uid);
  }

  boolean contains(String uid) {
    return pods.containsKey(uid);
  }

  int size() {
    return pods.size();
  }

  /** Removes and returns, in pool order, the pods {@code test} accepts. */
  List<QueuedPodInfo> pollIf(Predicate<QueuedPodInfo> test) {
    List<QueuedPodInfo> moved = new ArrayList<>();
    for (QueuedPodInfo info : pods.values()) {
      if (test.test(info)) {
        moved.add(info);
      }
    }
    for (QueuedPodInfo info : moved) {
      pods.remove(info.uid());
    }
    return moved;
  }

  /** Removes and returns the pods that waited longer than the limit by {@code now}. */
  List<QueuedPodInfo> pollLeftover(Instant now) {
    Instant cutoff = now.minus(maxInUnschedulable);
    return pollIf(info -> !info.timestamp().isAfter(cutoff));
  }

  /** The time at which the oldest pod will be flushed, if any. */
  Optional<Instant> nextFlush() {
    Instant min = null;
    for (QueuedPodInfo i : pods.values()) {
      if (min == null || i.timestamp().isBefore(min)) {
        min = i.timestamp();
      }
    }
    return min == null ? Optional.empty() : Optional.of(min.plus(maxInUnschedulable));
  }
}
