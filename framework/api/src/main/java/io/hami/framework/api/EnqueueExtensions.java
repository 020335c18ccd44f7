package io.hami.framework.api;

import java.util.List;

/**
 * Optional capability of a plugin that can reject pods (PreEnqueue, PreFilter, Filter, Reserve,
 * Permit): the cluster events that may make such a pod schedulable again. A pod rejected only by
 * plugins whose events do not match stays in the unschedulable pool until the periodic flush.
 *
 * <p>Called once, when the profile is built. A rejecting plugin that does not implement this
 * interface is treated as interested in every event.
 */
public interface EnqueueExtensions {

  List<ClusterEventWithHint> eventsToRegister();
}
