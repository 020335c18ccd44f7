package io.hami.sim;

/**
 * What one replay records per pod, in submission order: GPU demand arrived so far, GPU demand
 * placed so far, the cluster's fragment after the pod, and where the pod went.
 */
final class ReplayRecord {

  private final long[] arrived;
  private final long[] used;
  private final long[] fragment;
  private final int[] placedOn;
  private final int[] gpuMask;
  private long arrivedSum;
  private long usedSum;

  ReplayRecord(int pods) {
    arrived = new long[pods];
    used = new long[pods];
    fragment = new long[pods];
    placedOn = new int[pods];
    gpuMask = new int[pods];
  }

  /**
   * Pod {@code p} of {@code gpuMilli} went to trace node {@code node}, on the cards in {@code
   * mask}.
   */
  void placed(int p, long gpuMilli, int node, int mask, long fragmentAfter) {
    usedSum += gpuMilli;
    placedOn[p] = node;
    gpuMask[p] = mask;
    point(p, gpuMilli, fragmentAfter);
  }

  /** Pod {@code p} of {@code gpuMilli} fit nowhere. */
  void failed(int p, long gpuMilli, long fragmentAfter) {
    placedOn[p] = -1;
    point(p, gpuMilli, fragmentAfter);
  }

  private void point(int p, long gpuMilli, long fragmentAfter) {
    arrivedSum += gpuMilli;
    arrived[p] = arrivedSum;
    used[p] = usedSum;
    fragment[p] = fragmentAfter;
  }

  RunResult result(
      PreparedTrace trace, String policy, long seed, double emptyFragment, int[] submitted) {
    return new RunResult(
        trace.name(),
        policy,
        seed,
        trace.capacity(),
        trace.workload().totalWeight(),
        emptyFragment,
        submitted,
        arrived,
        used,
        fragment,
        placedOn,
        gpuMask);
  }
}
