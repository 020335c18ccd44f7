package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * A registered event and an optional hint that narrows it.
 *
 * @param event the events of interest
 * @param hint null to requeue on every matching event
 */
public record ClusterEventWithHint(ClusterEvent event, @Nullable QueueingHintFunction hint) {

  public ClusterEventWithHint {
    requireNonNull(event, "event");
  }

  public static ClusterEventWithHint of(ClusterEvent event) {
    return new ClusterEventWithHint(event, null);
  }

  public static ClusterEventWithHint of(ClusterEvent event, QueueingHintFunction hint) {
    return new ClusterEventWithHint(event, hint);
  }
}
