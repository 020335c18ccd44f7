package io.hami.framework.runtime;

import org.jspecify.annotations.Nullable;

/**
 * A pod assumed on a node at the end of its scheduling cycle, ready for the binding cycle.
 *
 * @param waiting the pod's Permit wait, or null when Permit allowed it at once
 */
record Placement(PodCycle cycle, String node, @Nullable WaitingPodImpl waiting) {}
