package io.hami.sim;

import java.util.List;
import java.util.Objects;

/**
 * A pod of a trace.
 *
 * @param name unique pod name
 * @param cpuMilli CPU request in millicores (0 is raised to Kubernetes' non-zero default of 100m)
 * @param memMiB memory request in MiB
 * @param gpuCount number of GPUs, 0..8
 * @param gpuMilli share of each GPU in thousandths, 0 when no GPU, at most 1000
 * @param gpuSpec the allowed GPU models as written in the trace ({@code |}-separated), or empty
 * @param models the allowed GPU models, empty meaning any
 */
public record TracePod(
    String name,
    int cpuMilli,
    long memMiB,
    int gpuCount,
    int gpuMilli,
    String gpuSpec,
    List<String> models) {

  /** CPU used for a pod that requests none (the scheduler's non-zero default). */
  public static final int DEFAULT_CPU_MILLI = 100;

  public TracePod {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(gpuSpec, "gpuSpec");
    models = List.copyOf(models);
    if (cpuMilli < 0 || memMiB < 0) {
      throw new IllegalArgumentException("pod " + name + ": negative CPU or memory");
    }
    if (cpuMilli == 0) {
      cpuMilli = DEFAULT_CPU_MILLI;
    }
    if (gpuCount < 0 || gpuCount > 8) {
      throw new IllegalArgumentException("pod " + name + ": gpus must be in 0..8, was " + gpuCount);
    }
    if (gpuCount == 0) {
      gpuMilli = 0;
    } else if (gpuMilli <= 0) {
      throw new IllegalArgumentException(
          "pod " + name + ": a GPU pod needs a GPU share > 0, was " + gpuMilli);
    }
    gpuMilli = Math.min(gpuMilli, 1000);
  }

  /** k·d in milli-GPU. */
  public long totalGpuMilli() {
    return (long) gpuCount * gpuMilli;
  }
}
