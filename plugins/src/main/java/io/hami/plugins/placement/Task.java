package io.hami.plugins.placement;

import io.hami.plugins.fgd.Fragmentation;

/**
 * A pod as the placement policies see it.
 *
 * @param cpuMilli CPU request in millicores
 * @param memMiB memory request in MiB
 * @param gpuMilli request per GPU in milli-GPU (0 when no GPU)
 * @param gpuCount number of GPUs (0 when no GPU)
 * @param modelMask allowed GPU models as a bit set of model ids, 0 meaning any
 * @param shapeId dense id of (cpuMilli, gpuMilli, gpuCount, modelMask) among the run's tasks, so
 *     that scores can be cached per node and shape; memory is checked apart
 */
public record Task(
    int cpuMilli, long memMiB, int gpuMilli, int gpuCount, long modelMask, int shapeId) {

  public Task {
    if (cpuMilli < 0 || memMiB < 0) {
      throw new IllegalArgumentException(
          "requests must be >= 0, were cpu " + cpuMilli + "m and memory " + memMiB + " MiB");
    }
    if (gpuMilli < 0 || gpuMilli > Fragmentation.FULL) {
      throw new IllegalArgumentException("gpuMilli must be in 0..1000, was " + gpuMilli);
    }
    if (gpuCount < 0 || gpuCount > Fragmentation.MAX_GPUS) {
      throw new IllegalArgumentException("gpuCount must be in 0..8, was " + gpuCount);
    }
    if ((gpuMilli == 0) != (gpuCount == 0)) {
      throw new IllegalArgumentException(
          "gpuMilli and gpuCount must both be 0 or both positive, were "
              + gpuMilli
              + " and "
              + gpuCount);
    }
    if (shapeId < 0) {
      throw new IllegalArgumentException("shapeId must be >= 0, was " + shapeId);
    }
  }

  /** True for a single GPU shared with others (k = 1, d < 1000). */
  public boolean isSharing() {
    return gpuCount == 1 && gpuMilli < Fragmentation.FULL;
  }

  /** k·d in milli-GPU. */
  public long totalGpuMilli() {
    return (long) gpuCount * gpuMilli;
  }

  /**
   * The GPU-clustering tag as a bit: bit 0 for a sharing task, bit k for a task of k whole GPUs,
   * none for a CPU-only task.
   */
  public int clusterTag() {
    if (gpuCount == 0) {
      return 0;
    }
    return isSharing() ? 1 : 1 << gpuCount;
  }
}
