package io.hami.plugins.placement;

import java.util.Arrays;

/**
 * A placement policy's evaluations of one pod shape, by node slot, each kept with the compact node
 * ({@link GpuNode}) it was computed on: it stands while the node's compact form is that same
 * object, which is replaced whenever the node, its devices or the target workload change. Two flat
 * arrays read in slot order, so scoring a shape seen before costs two reads per unchanged node.
 *
 * <p>Threads: {@link #ensure} runs on the scheduling thread before Score fans out; {@link #get} and
 * {@link #put} run for different nodes concurrently, and a node is scored by one thread per cycle.
 * The evaluation is written before its node, so it is only read for the node it was computed on.
 */
final class ShapeEvaluations {

  /** {@link #get}'s answer when nothing is kept for the node. */
  static final long NOT_KEPT = Long.MIN_VALUE + 1;

  private GpuNode[] nodes = new GpuNode[0];
  private long[] evaluations = new long[0];

  /** Makes room for nodes of slots below {@code slots}. */
  void ensure(int slots) {
    if (nodes.length < slots) {
      int n = Math.max(slots, nodes.length * 2);
      nodes = Arrays.copyOf(nodes, n);
      evaluations = Arrays.copyOf(evaluations, n);
    }
  }

  /** The evaluation kept for this compact node, or {@link #NOT_KEPT}. */
  long get(GpuNode g) {
    int i = g.slot;
    return i < nodes.length && nodes[i] == g ? evaluations[i] : NOT_KEPT;
  }

  /** Keeps the evaluation computed on this compact node (dropped when its slot has no room yet). */
  void put(GpuNode g, long evaluation) {
    int i = g.slot;
    if (i < nodes.length) {
      evaluations[i] = evaluation;
      nodes[i] = g;
    }
  }
}
