package io.hami.plugins.fgd;

/**
 * The fragmentation measure of the FGD paper over one node's compact state.
 *
 * <p>A node is its GPU model (a one-bit mask, 0 when it has no GPU model), its CPU left in
 * millicores, and the free share of each of its GPUs in milli-GPU, read from {@code free[off ..
 * off+gpus)}. All methods are static, allocation-free and safe to call from any thread.
 */
public final class Fragmentation {

  /** Most GPUs a node or task may have. */
  public static final int MAX_GPUS = 8;

  /** A fully free GPU, in milli-GPU. */
  public static final int FULL = 1000;

  private Fragmentation() {}

  /** Σ of the free shares. */
  public static int idle(int[] free, int off, int gpus) {
    int idle = 0;
    for (int g = off, end = off + gpus; g < end; g++) {
      idle += free[g];
    }
    return idle;
  }

  /**
   * F_n(m): the free GPU of the node that a task of shape m cannot use, in milli-GPU. All of it
   * when the task needs no GPU, may not use the model, lacks CPU or does not fit; otherwise only
   * the GPUs whose free share is smaller than the task's per-GPU request.
   */
  public static int taskFragment(
      long nodeModel,
      long cpuLeft,
      int[] free,
      int off,
      int gpus,
      int cpu,
      int milli,
      int count,
      long modelMask) {
    int idle = 0;
    int small = 0;
    int fit = 0;
    for (int g = off, end = off + gpus; g < end; g++) {
      int r = free[g];
      idle += r;
      if (r >= milli) {
        fit++;
      } else {
        small += r;
      }
    }
    if (milli == 0 || (modelMask != 0 && (modelMask & nodeModel) == 0)) {
      return idle;
    }
    return fit >= count && cpuLeft >= cpu ? small : idle;
  }

  /**
   * F_n(M) scaled by the workload's total weight: Σ_m weight_m · F_n(m). Exact; divide by {@link
   * TargetWorkload#totalWeight()} for milli-GPU.
   */
  public static long nodeFragment(
      TargetWorkload w, long nodeModel, long cpuLeft, int[] free, int off, int gpus) {
    if (gpus == 0) {
      return 0;
    }
    int idle = idle(free, off, gpus);
    if (idle == 0) {
      return 0;
    }
    final int[] cpu = w.cpu;
    final int[] milli = w.milli;
    final int[] count = w.count;
    final long[] mask = w.mask;
    final long[] weight = w.weight;
    final int end = off + gpus;
    long sum = 0;
    for (int m = 0, n = cpu.length; m < n; m++) {
      int d = milli[m];
      int frag;
      if (d == 0 || cpuLeft < cpu[m] || (mask[m] != 0 && (mask[m] & nodeModel) == 0)) {
        frag = idle;
      } else {
        int fit = 0;
        int small = 0;
        for (int g = off; g < end; g++) {
          int r = free[g];
          if (r >= d) {
            fit++;
          } else {
            small += r;
          }
        }
        frag = fit >= count[m] ? small : idle;
      }
      sum += weight[m] * frag;
    }
    return sum;
  }

  /** Fragmentation rate in percent: F over the idle GPU, or NaN when nothing is idle. */
  public static double rate(double fragmentMilli, double idleMilli) {
    return idleMilli <= 0 ? Double.NaN : 100.0 * fragmentMilli / idleMilli;
  }
}
