package io.hami.framework.api;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.Sets;
import java.util.EnumSet;
import java.util.Set;

/**
 * A change in the cluster: registered by plugins (what may make a pod they rejected schedulable),
 * and produced by the runtime from informer events (what did happen).
 *
 * @param resource the kind of object
 * @param actions the actions; for a registration, any of them matches
 * @param label a short name for logs and metrics
 */
public record ClusterEvent(EventResource resource, Set<ActionType> actions, String label) {

  public ClusterEvent {
    requireNonNull(resource, "resource");
    checkArgument(!actions.isEmpty(), "a cluster event needs at least one action");
    actions = Sets.immutableEnumSet(actions);
    requireNonNull(label, "label");
  }

  public static ClusterEvent of(EventResource resource, ActionType first, ActionType... rest) {
    EnumSet<ActionType> set = EnumSet.of(first, rest);
    return new ClusterEvent(resource, set, resource + "/" + set);
  }

  public static ClusterEvent of(EventResource resource, Set<ActionType> actions) {
    return new ClusterEvent(resource, actions, resource + "/" + actions);
  }

  /** Returns whether this registration covers the concrete event {@code happened}. */
  public boolean matches(ClusterEvent happened) {
    if (resource != EventResource.WILDCARD && resource != happened.resource) {
      return false;
    }
    for (ActionType a : happened.actions) {
      if (actions.contains(a)) {
        return true;
      }
    }
    return false;
  }
}
