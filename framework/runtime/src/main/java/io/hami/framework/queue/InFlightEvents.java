package io.hami.framework.queue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.hami.framework.api.ClusterEvent;
import java.util.ArrayDeque;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * The cluster events seen while pods were being scheduled, numbered in arrival order, so that a pod
 * that fails can tell whether an event that may help it came during its attempt. Not thread-safe:
 * guarded by the queue's lock.
 */
final class InFlightEvents {
  private record Event(
      long seq, ClusterEvent event, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {}

  // In event order, so trimming drops a prefix: binding pods stay in flight for long, and the
  // events they pin must not be rescanned on every attempt.
  private final ArrayDeque<Event> events = new ArrayDeque<>();
  private long seq;

  /** The number of the last event seen; a pod popped now saw every event up to it. */
  long seq() {
    return seq;
  }

  /** Counts an event, and keeps it while some pod is being scheduled. */
  void add(
      ClusterEvent event,
      @Nullable HasMetadata oldObj,
      @Nullable HasMetadata newObj,
      boolean podsInFlight) {
    seq++;
    if (podsInFlight) {
      events.add(new Event(seq, event, oldObj, newObj));
    }
  }

  /** Whether an event after {@code info} was popped is one its rejecting plugins care about. */
  boolean sawMatching(QueuedPodInfo info, RequeueHints hints) {
    for (Event e : events) {
      if (e.seq > info.popEventSeq && hints.worthRequeuing(info, e.event, e.oldObj, e.newObj)) {
        return true;
      }
    }
    return false;
  }

  /** Drops the events every pod still in flight was popped after. */
  void trim(Collection<QueuedPodInfo> inFlight) {
    if (inFlight.isEmpty()) {
      events.clear();
      return;
    }
    long oldest = Long.MAX_VALUE;
    for (QueuedPodInfo i : inFlight) {
      oldest = Math.min(oldest, i.popEventSeq);
    }
    while (!events.isEmpty() && events.peekFirst().seq <= oldest) {
      events.pollFirst();
    }
  }
}
