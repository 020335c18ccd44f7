package io.hami.plugins.placement;

import io.hami.plugins.fgd.Fragmentation;
import io.hami.plugins.fgd.TargetWorkload;
import java.util.Arrays;

/**
 * Mutable compact state of a cluster's nodes for fast placement: CPU and memory left, GPU model,
 * free milli-GPU per GPU, the GPU-clustering tags of the node's pods, and the node's fragment
 * against a target workload, kept up to date on every placement.
 *
 * <p>Not thread-safe: one table per replay. {@link #version(int)} changes whenever a node changes,
 * so that callers may cache per-node results.
 */
public final class NodeTable {

  /** Stride of {@link #free}: slots per node. */
  public static final int STRIDE = Fragmentation.MAX_GPUS;

  private final TargetWorkload workload;
  private final int size;
  final long[] cpuLeft;
  final long[] memLeft;
  final long[] model;
  final int[] gpus;
  final int[] free;
  final int[] gpuLeft;
  final int[] tags;
  final long[] fragment;
  private final int[] version;
  private long totalFragment;
  private long totalIdle;
  private final long capacity;

  /**
   * A table of empty nodes.
   *
   * @param cpuMilli CPU allocatable per node
   * @param memMiB memory allocatable per node
   * @param modelBit GPU model per node as a one-bit mask (0 for none)
   * @param gpuCount GPUs per node, 0..8
   */
  public NodeTable(
      TargetWorkload workload, long[] cpuMilli, long[] memMiB, long[] modelBit, int[] gpuCount) {
    this.workload = workload;
    size = cpuMilli.length;
    if (memMiB.length != size || modelBit.length != size || gpuCount.length != size) {
      throw new IllegalArgumentException("node arrays differ in length");
    }
    cpuLeft = cpuMilli.clone();
    memLeft = memMiB.clone();
    model = modelBit.clone();
    gpus = gpuCount.clone();
    free = new int[size * STRIDE];
    gpuLeft = new int[size];
    tags = new int[size];
    fragment = new long[size];
    version = new int[size];
    long cap = 0;
    for (int n = 0; n < size; n++) {
      if (gpus[n] < 0 || gpus[n] > STRIDE) {
        throw new IllegalArgumentException("node " + n + " has " + gpus[n] + " GPUs; 0..8 allowed");
      }
      Arrays.fill(free, n * STRIDE, n * STRIDE + gpus[n], Fragmentation.FULL);
      gpuLeft[n] = gpus[n] * Fragmentation.FULL;
      cap += gpuLeft[n];
      fragment[n] =
          Fragmentation.nodeFragment(workload, model[n], cpuLeft[n], free, n * STRIDE, gpus[n]);
      totalFragment += fragment[n];
    }
    capacity = cap;
    totalIdle = cap;
  }

  /**
   * A table of one node in a given state: CPU and memory left, the free share of each GPU, and the
   * GPU-clustering tags of the pods it holds.
   */
  public static NodeTable single(
      TargetWorkload workload, long cpuLeft, long memLeft, long modelBit, int[] free, int tags) {
    NodeTable t =
        new NodeTable(
            workload,
            new long[] {cpuLeft},
            new long[] {memLeft},
            new long[] {modelBit},
            new int[] {free.length});
    int left = 0;
    for (int g = 0; g < free.length; g++) {
      if (free[g] < 0 || free[g] > Fragmentation.FULL) {
        throw new IllegalArgumentException(
            "free share of GPU " + g + " must be in 0..1000, was " + free[g]);
      }
      t.free[g] = free[g];
      left += free[g];
    }
    t.gpuLeft[0] = left;
    t.totalIdle = left;
    t.tags[0] = tags;
    t.fragment[0] = Fragmentation.nodeFragment(workload, modelBit, cpuLeft, t.free, 0, free.length);
    t.totalFragment = t.fragment[0];
    return t;
  }

  public TargetWorkload workload() {
    return workload;
  }

  public int size() {
    return size;
  }

  /** Total GPU capacity in milli-GPU. */
  public long capacity() {
    return capacity;
  }

  /** Σ free milli-GPU over the cluster. */
  public long totalIdle() {
    return totalIdle;
  }

  /** Σ over nodes of the weighted fragment; divide by the workload's total weight for milli-GPU. */
  public long totalFragment() {
    return totalFragment;
  }

  /** Cluster fragment in milli-GPU. */
  public double fragmentMilli() {
    return (double) totalFragment / workload.totalWeight();
  }

  public int version(int n) {
    return version[n];
  }

  public long cpuLeft(int n) {
    return cpuLeft[n];
  }

  public long memLeft(int n) {
    return memLeft[n];
  }

  public int gpus(int n) {
    return gpus[n];
  }

  public int gpuLeft(int n) {
    return gpuLeft[n];
  }

  public int free(int n, int g) {
    return free[n * STRIDE + g];
  }

  /** True when the task passes the CPU, memory, GPU model and GPU fit filters on node n. */
  public boolean fits(int n, Task t) {
    return t.memMiB() <= memLeft[n] && fitsIgnoringMemory(n, t);
  }

  /** {@link #fits} without the memory check, which depends on more than the task's shape. */
  public boolean fitsIgnoringMemory(int n, Task t) {
    if (t.cpuMilli() > cpuLeft[n]) {
      return false;
    }
    int k = t.gpuCount();
    if (k == 0) {
      return true;
    }
    long mask = t.modelMask();
    if (gpus[n] < k || (mask != 0 && (mask & model[n]) == 0)) {
      return false;
    }
    int d = t.gpuMilli();
    int fit = 0;
    for (int g = n * STRIDE, end = g + gpus[n]; g < end; g++) {
      if (free[g] >= d && ++fit >= k) {
        return true;
      }
    }
    return false;
  }

  /**
   * Best-fit GPU choice: the k GPUs with the smallest free share that still fits, lowest index on
   * ties (so whole-GPU tasks take the lowest-index free GPUs).
   *
   * @return the chosen GPUs as a bit mask, or 0 when they do not fit
   */
  public int bestFitGpus(int n, int milli, int count) {
    int base = n * STRIDE;
    int mask = 0;
    for (int c = 0; c < count; c++) {
      int best = -1;
      int bestFree = Integer.MAX_VALUE;
      for (int g = 0; g < gpus[n]; g++) {
        int r = free[base + g];
        if ((mask & (1 << g)) == 0 && r >= milli && r < bestFree) {
          best = g;
          bestFree = r;
        }
      }
      if (best < 0) {
        return 0;
      }
      mask |= 1 << best;
    }
    return mask;
  }

  /**
   * Sets node n's state as another component accounted it: CPU and memory left, each GPU's free
   * share, and a GPU-clustering tag to add.
   */
  public void set(int n, long cpu, long mem, int[] freeShares, int addTags) {
    if (freeShares.length != gpus[n]) {
      throw new IllegalArgumentException(
          "node " + n + " has " + gpus[n] + " GPUs, got " + freeShares.length + " free shares");
    }
    int base = n * STRIDE;
    int left = 0;
    for (int g = 0; g < freeShares.length; g++) {
      if (freeShares[g] < 0 || freeShares[g] > Fragmentation.FULL) {
        throw new IllegalArgumentException(
            "free share of GPU " + g + " must be in 0..1000, was " + freeShares[g]);
      }
      free[base + g] = freeShares[g];
      left += freeShares[g];
    }
    totalIdle += left - gpuLeft[n];
    gpuLeft[n] = left;
    cpuLeft[n] = cpu;
    memLeft[n] = mem;
    tags[n] |= addTags;
    long f = Fragmentation.nodeFragment(workload, model[n], cpuLeft[n], free, base, gpus[n]);
    totalFragment += f - fragment[n];
    fragment[n] = f;
    version[n]++;
  }

  /** Places the task on node n, taking {@code milli} from each GPU in {@code gpuMask}. */
  public void place(int n, Task t, int gpuMask) {
    if (Integer.bitCount(gpuMask) != t.gpuCount()) {
      throw new IllegalArgumentException(
          "task needs " + t.gpuCount() + " GPUs, mask 0b" + Integer.toBinaryString(gpuMask));
    }
    int base = n * STRIDE;
    int d = t.gpuMilli();
    for (int g = 0; g < gpus[n]; g++) {
      if ((gpuMask & (1 << g)) != 0) {
        if (free[base + g] < d) {
          throw new IllegalStateException("GPU " + g + " of node " + n + " has too little free");
        }
        free[base + g] -= d;
      }
    }
    if ((gpuMask >>> gpus[n]) != 0) {
      throw new IllegalArgumentException("mask names a GPU node " + n + " does not have");
    }
    cpuLeft[n] -= t.cpuMilli();
    memLeft[n] -= t.memMiB();
    int taken = (int) t.totalGpuMilli();
    gpuLeft[n] -= taken;
    totalIdle -= taken;
    tags[n] |= t.clusterTag();
    long f = Fragmentation.nodeFragment(workload, model[n], cpuLeft[n], free, base, gpus[n]);
    totalFragment += f - fragment[n];
    fragment[n] = f;
    version[n]++;
  }
}
