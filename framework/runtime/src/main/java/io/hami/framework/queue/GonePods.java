package io.hami.framework.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pods found gone from the API server (a write answered 404) before their delete event came, by
 * uid, in the order they were dropped. The informer may still deliver older updates of such a pod;
 * they must not bring it back. Not thread-safe: guarded by the queue's lock.
 */
final class GonePods {
  /** How long a pod found gone stays refused; far longer than any informer lag. */
  static final Duration TTL = Duration.ofMinutes(10);

  private final LinkedHashMap<String, Instant> since = new LinkedHashMap<>();

  /** Records {@code uid} as gone at {@code now}, forgetting the records past their TTL. */
  void add(String uid, Instant now) {
    Iterator<Map.Entry<String, Instant>> it = since.entrySet().iterator();
    while (it.hasNext() && it.next().getValue().plus(TTL).isBefore(now)) {
      it.remove();
    }
    since.put(uid, now);
  }

  /** Whether {@code uid} was found gone less than {@link #TTL} before {@code now}. */
  boolean contains(String uid, Instant now) {
    if (since.isEmpty()) {
      return false;
    }
    Instant at = since.get(uid);
    return at != null && !at.plus(TTL).isBefore(now);
  }
}
