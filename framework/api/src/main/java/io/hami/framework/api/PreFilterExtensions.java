package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Optional capability of a {@link PreFilterPlugin}: update its PreFilter state incrementally as if
 * a pod were added to or removed from a node. Used by PostFilter plugins (preemption) on a {@link
 * CycleState#copy()}; called on the scheduling thread.
 *
 * <p>Allowed codes: {@link Code#SUCCESS} or {@link Code#ERROR}.
 */
public interface PreFilterExtensions {

  Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd, NodeInfo node);

  Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove, NodeInfo node);
}
