package io.hami.framework.queue;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The pods backing off after a failure, ordered as kube-scheduler's backoff queue with
 * SchedulerPopFromBackoffQ: by the one-second window of the backoff expiry, then in QueueSort
 * order, so that an idle queue pops the pods of one window in the order the active queue would.
 *
 * <p>Not thread-safe: the scheduling queue's lock guards it.
 */
final class BackoffQueue implements Iterable<QueuedPodInfo> {
  private final BackoffPolicy policy;
  private final TreeSet<QueuedPodInfo> pods;

  BackoffQueue(Comparator<QueuedPodInfo> bySort, BackoffPolicy policy) {
    this.policy = policy;
    this.pods =
        new TreeSet<>(
            Comparator.<QueuedPodInfo, Instant>comparing(this::window)
                .thenComparing(bySort)
                .thenComparingLong(i -> i.seq));
  }

  boolean add(QueuedPodInfo info) {
    return pods.add(info);
  }

  boolean remove(QueuedPodInfo info) {
    return pods.remove(info);
  }

  boolean contains(QueuedPodInfo info) {
    return pods.contains(info);
  }

  int size() {
    return pods.size();
  }

  /** In queue order; its {@code remove} takes the pod out of the queue. */
  @Override
  public Iterator<QueuedPodInfo> iterator() {
    return pods.iterator();
  }

  /** Whether the pod's backoff, counted from its last failure, ends after {@code now}. */
  boolean isBackingOff(QueuedPodInfo info, Instant now) {
    return policy.expiry(info).isAfter(now);
  }

  /** Removes and returns, in queue order, the pods whose backoff ended by {@code now}. */
  List<QueuedPodInfo> pollExpired(Instant now) {
    Instant window = now.truncatedTo(ChronoUnit.SECONDS);
    List<QueuedPodInfo> done = new ArrayList<>();
    for (QueuedPodInfo info : pods) {
      if (window(info).isAfter(window)) {
        break;
      }
      if (!policy.expiry(info).isAfter(now)) {
        done.add(info);
      }
    }
    for (QueuedPodInfo info : done) {
      pods.remove(info);
    }
    return done;
  }

  /** The earliest backoff expiry, if any pod is backing off. */
  Optional<Instant> nextExpiry() {
    if (pods.isEmpty()) {
      return Optional.empty();
    }
    // The earliest expiry lies in the first window, though not always at its first pod.
    Instant first = window(pods.first());
    Instant min = null;
    for (QueuedPodInfo info : pods) {
      if (!window(info).equals(first)) {
        break;
      }
      Instant e = policy.expiry(info);
      if (min == null || e.isBefore(min)) {
        min = e;
      }
    }
    return Optional.ofNullable(min);
  }

  /** The one-second window of the pod's backoff expiry: the queue's first key. */
  private Instant window(QueuedPodInfo info) {
    return policy.expiry(info).truncatedTo(ChronoUnit.SECONDS);
  }
}
