package io.hami.framework.queue;

import java.time.Duration;
import java.time.Instant;

/** When a failed pod may be retried: an initial backoff, doubled per further failure, capped. */
final class BackoffPolicy {
  private final Duration initialBackoff;
  private final Duration maxBackoff;

  BackoffPolicy(Duration initialBackoff, Duration maxBackoff) {
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
  }

  /** The backoff duration after {@code attempts} failures: initial doubling up to max. */
  Duration duration(int attempts) {
    Duration d = initialBackoff;
    for (int i = 1; i < attempts && d.compareTo(maxBackoff) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
  }

  /** When the pod's backoff ends, counted from its last failure. */
  Instant expiry(QueuedPodInfo info) {
    if (info.attempts() == 0) {
      // Never tried (held by PreEnqueue): nothing to back off from.
      return info.timestamp();
    }
    return info.timestamp().plus(duration(info.attempts()));
  }
}
