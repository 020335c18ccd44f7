package io.hami.plugins.placement;

/**
 * A placement policy: an integer score for a task on a node, and the GPUs it would take there. The
 * highest score wins; ties go to the node that comes first in the caller's tie-break order.
 *
 * <p>Implementations are stateless and allocation-free; one instance may serve many threads, each
 * with its own {@link NodeTable} and scratch array.
 */
public interface PlacementPolicy {

  /** The policy's name as selected on the command line or in a profile. */
  String policyName();

  /**
   * Evaluates a task on node {@code n}, which the task fits (CPU, memory, model and GPU checks have
   * passed).
   *
   * @param scratch at least {@link NodeTable#STRIDE} ints, overwritten
   * @return {@code score << 8 | gpuMask}; read it with {@link #score} and {@link #gpuMask}
   */
  long evaluate(NodeTable table, int n, Task task, int[] scratch);

  /** The score part of an {@link #evaluate} result. */
  static int score(long evaluation) {
    return (int) (evaluation >> 8);
  }

  /** The GPU mask part of an {@link #evaluate} result: bit g set when GPU g is taken. */
  static int gpuMask(long evaluation) {
    return (int) (evaluation & 0xFF);
  }

  /** Packs a score and a GPU mask. */
  static long evaluation(int score, int gpuMask) {
    return ((long) score << 8) | (gpuMask & 0xFF);
  }
}
