package io.hami.framework.queue;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How long the queue holds pods back.
 *
 * @param initialBackoff the backoff after a pod's first failure, doubled per further failure
 * @param maxBackoff the longest backoff
 * @param maxInUnschedulable how long a pod waits for an event before it is retried anyway
 */
public record QueueTimeouts(
    Duration initialBackoff, Duration maxBackoff, Duration maxInUnschedulable) {
  public QueueTimeouts {
    requireNonNull(initialBackoff, "initialBackoff");
    requireNonNull(maxBackoff, "maxBackoff");
    requireNonNull(maxInUnschedulable, "maxInUnschedulable");
  }
}
