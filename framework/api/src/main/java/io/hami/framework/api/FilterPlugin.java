package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Decides whether a pod can run on one node. Called once per candidate node, concurrently for
 * different nodes on the framework's parallelizer; must read only {@code node}, {@code state} and
 * immutable plugin state, and never call the API.
 *
 * <p>Allowed codes: {@link Code#SUCCESS}; {@link Code#UNSCHEDULABLE} or {@link
 * Code#UNSCHEDULABLE_AND_UNRESOLVABLE} with short stable reasons, which are counted across nodes in
 * the pod's PodScheduled message; {@link Code#ERROR} ends the cycle.
 */
public interface FilterPlugin extends Plugin {

  Status filter(CycleState state, Pod pod, NodeInfo node);
}
