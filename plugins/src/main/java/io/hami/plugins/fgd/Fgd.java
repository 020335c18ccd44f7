package io.hami.plugins.fgd;

/**
 * The FGD score: place a task where the node's fragment against the target workload grows least.
 *
 * <p>Score = trunc(100 · sigmoid(−Δ/1000)) with Δ = F_n'(M) − F_n(M) in milli-GPU, where n' is the
 * node after the hypothetical placement. A shared-GPU task tries every GPU that fits, in index
 * order, and keeps the first best; a whole-GPU task takes the lowest-index GPUs that fit. Static
 * and allocation-free: callers pass a scratch array of at least {@link Fragmentation#MAX_GPUS}
 * ints.
 */
public final class Fgd {

  private Fgd() {}

  /**
   * Scores a task on a node it fits (the caller has filtered CPU, memory, model and GPU fit).
   *
   * @param current the node's current {@link Fragmentation#nodeFragment} (weighted)
   * @param scratch at least {@code gpus} ints, overwritten
   * @return {@code score << 8 | gpuMask}, where bit g of the mask marks GPU {@code g} (relative to
   *     {@code off}) as chosen; the mask is 0 for a CPU-only task
   */
  public static long evaluate(
      TargetWorkload w,
      long current,
      long nodeModel,
      long cpuLeft,
      int[] free,
      int off,
      int gpus,
      int cpu,
      int milli,
      int count,
      int[] scratch) {
    long cpuAfter = cpuLeft - cpu;
    if (count == 0 || milli == 0) {
      long after = Fragmentation.nodeFragment(w, nodeModel, cpuAfter, free, off, gpus);
      return (long) score(after - current, w.totalWeight()) << 8;
    }
    System.arraycopy(free, off, scratch, 0, gpus);
    if (count == 1 && milli < Fragmentation.FULL) {
      int best = -1;
      int bestGpu = -1;
      for (int g = 0; g < gpus; g++) {
        int r = scratch[g];
        if (r < milli || seenBefore(scratch, g, r)) {
          continue;
        }
        scratch[g] = r - milli;
        long after = Fragmentation.nodeFragment(w, nodeModel, cpuAfter, scratch, 0, gpus);
        scratch[g] = r;
        int s = score(after - current, w.totalWeight());
        if (s > best) {
          best = s;
          bestGpu = g;
        }
      }
      return bestGpu < 0 ? -1L : ((long) best << 8) | (1L << bestGpu);
    }
    int chosen = 0;
    int mask = 0;
    for (int g = 0; g < gpus && chosen < count; g++) {
      if (scratch[g] >= milli) {
        scratch[g] -= milli;
        mask |= 1 << g;
        chosen++;
      }
    }
    if (chosen < count) {
      return -1L;
    }
    long after = Fragmentation.nodeFragment(w, nodeModel, cpuAfter, scratch, 0, gpus);
    return ((long) score(after - current, w.totalWeight()) << 8) | mask;
  }

  /** trunc(100 · sigmoid(−Δ/1000)) for Δ = weightedDelta / totalWeight milli-GPU. */
  public static int score(long weightedDelta, long totalWeight) {
    double delta = (double) weightedDelta / totalWeight;
    return (int) (100.0 / (1.0 + Math.exp(delta / 1000.0)));
  }

  // An earlier GPU with the same free share gives the same score and already won the tie.
  private static boolean seenBefore(int[] a, int g, int r) {
    for (int i = 0; i < g; i++) {
      if (a[i] == r) {
        return true;
      }
    }
    return false;
  }
}
