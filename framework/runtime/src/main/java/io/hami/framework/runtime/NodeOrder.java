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

  /**
   * By the primary scores in turn ({@code first[k][node]}; none: the weighted sum alone), then by
   * the weighted sum.
   */
  static NodeOrder by(double[][] first, long[] total) {
    if (first.length == 0) {
      return by(total);
    }
    return (a, b) -> {
      for (double[] f : first) {
        int c = Double.compare(f[a], f[b]);
        if (c != 0) {
          return c;
        }
      }
      return Long.compare(total[a], total[b]);
    };
  }
}
