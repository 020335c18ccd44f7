package io.hami.sim;

import java.util.Objects;

/**
 * A node of a trace.
 *
 * @param name unique node name
 * @param cpuMilli allocatable CPU in millicores
 * @param memMiB allocatable memory in MiB
 * @param gpus number of GPUs, 0..8
 * @param model GPU model name, empty when the node has no GPU
 */
public record TraceNode(String name, long cpuMilli, long memMiB, int gpus, String model) {
  public TraceNode {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(model, "model");
    if (cpuMilli < 0 || memMiB < 0) {
      throw new IllegalArgumentException("node " + name + ": negative CPU or memory");
    }
    if (gpus < 0 || gpus > 8) {
      throw new IllegalArgumentException("node " + name + ": gpus must be in 0..8, was " + gpus);
    }
  }
}
