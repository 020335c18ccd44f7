package io.hami.framework.api;

/**
 * Nodes a PreFilter plugin knows its own Filter rejects, by their position in the cycle's {@link
 * Snapshot#nodes()}: the runtime then counts them as filtered and rejected without running any
 * Filter plugin on them, so a pod's search for feasible nodes costs little for nodes that certainly
 * cannot hold it (full GPU nodes, for instance), and visits every other node exactly as before.
 *
 * <p>The answer must be exact in one direction: a position may be reported only when the plugin's
 * Filter certainly rejects that node for the pod in this cycle. When the search finds no feasible
 * node, the runtime runs the Filter plugins on the excluded nodes after all, so the pod's message
 * counts their reasons as it always did.
 *
 * <p>Called on the scheduling thread, or concurrently from the Filter fan-out: implementations must
 * only read state fixed for the cycle.
 */
@FunctionalInterface
public interface ExcludedNodes {

  /** Whether the node at {@code position} of the cycle's snapshot certainly fails Filter. */
  boolean excluded(int position);

  /** Either of two exclusions. */
  default ExcludedNodes or(ExcludedNodes other) {
    return position -> excluded(position) || other.excluded(position);
  }
}
