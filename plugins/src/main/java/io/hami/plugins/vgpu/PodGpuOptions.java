package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

/**
 * The pod's placement options, read once from its annotations with the profile's defaults.
 *
 * @param filter device selection ({@code use-/nouse-gputype}, {@code use-/nouse-gpuuuid}, {@code
 *     vgpu-mode})
 * @param gpuPolicy device order and fit behaviour
 * @param nodePolicy node ranking
 * @param weights device score weights
 * @param numaBind all devices of one container on one NUMA node
 */
public record PodGpuOptions(
    DeviceFilter filter,
    GpuPolicy gpuPolicy,
    NodePolicy nodePolicy,
    ScoringWeights weights,
    boolean numaBind) {

  public static final PodGpuOptions DEFAULT =
      new PodGpuOptions(
          DeviceFilter.NONE, GpuPolicy.SPREAD, NodePolicy.BINPACK, ScoringWeights.DEFAULT, false);

  public PodGpuOptions {
    requireNonNull(filter, "filter");
    requireNonNull(gpuPolicy, "gpuPolicy");
    requireNonNull(nodePolicy, "nodePolicy");
    requireNonNull(weights, "weights");
  }

  public PodGpuOptions withGpuPolicy(GpuPolicy p) {
    return new PodGpuOptions(filter, p, nodePolicy, weights, numaBind);
  }

  public PodGpuOptions withNodePolicy(NodePolicy p) {
    return new PodGpuOptions(filter, gpuPolicy, p, weights, numaBind);
  }

  public PodGpuOptions withFilter(DeviceFilter f) {
    return new PodGpuOptions(f, gpuPolicy, nodePolicy, weights, numaBind);
  }

  public PodGpuOptions withWeights(ScoringWeights w) {
    return new PodGpuOptions(filter, gpuPolicy, nodePolicy, w, numaBind);
  }

  public PodGpuOptions withNumaBind(boolean b) {
    return new PodGpuOptions(filter, gpuPolicy, nodePolicy, weights, b);
  }
}
