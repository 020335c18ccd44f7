package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Runs once per scheduling attempt before Filter, on the scheduling thread: precomputes what Filter
 * needs into {@link CycleState} and may narrow the candidate nodes.
 *
 * <p>Allowed codes: {@link Code#SUCCESS}; {@link Code#SKIP} (this plugin's Filter is not run for
 * the pod); a rejection (the pod fits no node; the cycle ends as unschedulable); {@link Code#ERROR}
 * (the cycle ends, the pod backs off).
 *
 * <p>A plugin whose PreFilter state depends on other pods on a node implements {@link
 * PreFilterExtensions} as well, so that preemption can evaluate "what if".
 */
public interface PreFilterPlugin extends Plugin {

  /**
   * Prepares the Filter state of this cycle for the pod.
   *
   * @param state the cycle state to write into
   * @param pod the pod being scheduled
   * @param snapshot the cycle's snapshot
   */
  PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot);
}
