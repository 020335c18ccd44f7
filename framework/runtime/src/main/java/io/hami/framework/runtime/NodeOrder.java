package io.hami.framework.runtime;

/**
 * How two scored nodes, by index into the feasible list, rank: positive when {@code a} is better.
 */
@FunctionalInterface
interface NodeOrder {
  int compare(int a, int b);

  /** By the weighted sum alone. */
  static NodeOrder by(long[] total) {
    return (a, b) -> Long.compare(total[a], total[b]);
  }

  /** By the primary score, then by the weighted sum. */
  static NodeOrder by(double[] first, long[] total) {
    return (a, b) -> {
      int c = Double.compare(first[a], first[b]);
      return c != 0 ? c : Long.compare(total[a], total[b]);
    };
  }
}
