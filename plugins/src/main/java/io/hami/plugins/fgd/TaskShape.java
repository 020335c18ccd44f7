package io.hami.plugins.fgd;

/**
 * The resource shape of a task as the fragmentation measure sees it. Memory is not part of a shape.
 *
 * @param cpuMilli CPU request in millicores
 * @param gpuMilli request per GPU in milli-GPU (0 for a CPU-only task, at most 1000)
 * @param gpuCount number of GPUs (0 for a CPU-only task)
 * @param modelMask allowed GPU models as a bit set of model ids, 0 meaning any model
 */
public record TaskShape(int cpuMilli, int gpuMilli, int gpuCount, long modelMask) {

  public TaskShape {
    if (cpuMilli < 0) {
      throw new IllegalArgumentException("cpuMilli must be >= 0, was " + cpuMilli);
    }
    if (gpuMilli < 0 || gpuMilli > 1000) {
      throw new IllegalArgumentException("gpuMilli must be in 0..1000, was " + gpuMilli);
    }
    if (gpuCount < 0 || gpuCount > Fragmentation.MAX_GPUS) {
      throw new IllegalArgumentException(
          "gpuCount must be in 0.." + Fragmentation.MAX_GPUS + ", was " + gpuCount);
    }
    if ((gpuMilli == 0) != (gpuCount == 0)) {
      throw new IllegalArgumentException(
          "gpuMilli and gpuCount must both be 0 or both positive, were "
              + gpuMilli
              + " and "
              + gpuCount);
    }
  }

  /** A shape that needs no GPU. */
  public static TaskShape cpuOnly(int cpuMilli) {
    return new TaskShape(cpuMilli, 0, 0, 0L);
  }

  /** True when the task needs no GPU. */
  public boolean isCpuOnly() {
    return gpuCount == 0;
  }

  /** True for a single GPU shared with others (k = 1, d < 1000). */
  public boolean isSharing() {
    return gpuCount == 1 && gpuMilli < 1000;
  }

  /** Total GPU request in milli-GPU, k·d. */
  public long totalGpuMilli() {
    return (long) gpuCount * gpuMilli;
  }
}
