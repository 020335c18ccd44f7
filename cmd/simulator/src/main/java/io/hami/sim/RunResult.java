package io.hami.sim;

/**
 * The per-pod records of one replay, in submission order: cumulative arrived and used GPU in
 * milli-GPU (arrived counts failed pods too), the cluster fragment after the pod (weighted; divide
 * by {@link #fragmentScale()} for milli-GPU), and the node (index in name order) the pod went to,
 * or -1.
 *
 * <p>Arrays are owned by the result and must not be modified.
 */
// Primitive arrays: a replay records several values for each of up to a few hundred thousand
// pods, and the reports read them by index; lists of boxed values would cost memory and time.
@SuppressWarnings("ArrayRecordComponent")
public record RunResult(
    String trace,
    String policy,
    long seed,
    long capacity,
    long fragmentScale,
    double emptyFragmentMilli,
    int[] podIndex,
    long[] arrived,
    long[] used,
    long[] fragment,
    int[] node,
    int[] gpuMask) {

  /** Number of pods submitted. */
  public int pods() {
    return node.length;
  }

  /** Number of pods that fit nowhere. */
  public int failed() {
    int f = 0;
    for (int n : node) {
      if (n < 0) {
        f++;
      }
    }
    return f;
  }

  /** Unallocated GPU in percent of capacity after pod i. */
  public double unallocatedPercent(int i) {
    return 100.0 - 100.0 * used[i] / capacity;
  }

  /**
   * Fragmentation rate in percent (fragment over idle GPU) after pod i; NaN when nothing is idle.
   */
  public double fragmentationRate(int i) {
    long idle = capacity - used[i];
    return idle <= 0 ? Double.NaN : 100.0 * fragment[i] / fragmentScale / idle;
  }

  /** Fragment in percent of all GPUs after pod i. */
  public double fragmentPercent(int i) {
    return 100.0 * fragment[i] / fragmentScale / capacity;
  }
}
