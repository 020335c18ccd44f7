package io.hami.framework.runtime;

import org.jspecify.annotations.Nullable;

/**
 * A pod assumed on a node at the end of its scheduling cycle, ready for the binding cycle.
 *
 * @param waiting the pod's Permit wait, or null when Permit allowed it at once
 * @param allNodes the nodes in the cycle's snapshot, for the failure's diagnosis: the binding
 *     thread must not read the snapshot, which the scheduling thread replaces for its next cycle
 */
record Placement(PodCycle cycle, String node, @Nullable WaitingPodImpl waiting, int allNodes) {}
