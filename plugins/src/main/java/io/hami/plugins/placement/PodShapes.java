package io.hami.plugins.placement;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Resources;
import io.hami.model.Annotations;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.RequestRule;
import io.hami.plugins.fgd.HamiShape;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Reads a pod's placement shape from its resources and annotations. */
public final class PodShapes {

  private PodShapes() {}

  /** A pod's shape and which container (init containers first) holds its GPU request. */
  public record PodShape(HamiShape shape, long memMiB, int gpuContainer, int containers) {}

  /**
   * The pod's shape: its CPU and memory requests, and the NVIDIA request of its one GPU container;
   * null when more than one container asks for GPUs (the policies model one request per pod) or a
   * request cannot be read.
   */
  public static @Nullable PodShape of(Pod pod, Resources requests) {
    List<Container> init =
        pod.getSpec() == null || pod.getSpec().getInitContainers() == null
            ? List.of()
            : pod.getSpec().getInitContainers();
    List<Container> app =
        pod.getSpec() == null || pod.getSpec().getContainers() == null
            ? List.of()
            : pod.getSpec().getContainers();
    ContainerRequest gpu = null;
    int at = -1;
    int i = 0;
    for (List<Container> group : List.of(init, app)) {
      for (Container c : group) {
        ContainerRequest r;
        try {
          r = RequestRule.NVIDIA_DEFAULTS.deriveOrNone(ContainerResources.of(c));
        } catch (RuntimeException e) {
          return null;
        }
        if (!r.isEmpty()) {
          if (gpu != null) {
            return null;
          }
          gpu = r;
          at = i;
        }
        i++;
      }
    }
    int cpu =
        (int)
            Math.min(
                Integer.MAX_VALUE,
                Math.max(requests.milliCpu(), Resources.DEFAULT_MILLI_CPU_REQUEST));
    long mem = requests.memory() >> 20;
    if (gpu == null) {
      return new PodShape(HamiShape.cpuOnly(cpu), mem, -1, i);
    }
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String types = annotations == null ? null : annotations.get(Annotations.NVIDIA_USE_GPUTYPE);
    List<String> typeList = types == null ? List.of() : Arrays.stream(types.split(",")).toList();
    HamiShape shape =
        new HamiShape(
            cpu,
            Math.min(gpu.nums(), 8),
            gpu.memreq(),
            gpu.memPercentage(),
            gpu.coresreq(),
            typeList);
    return new PodShape(shape, mem, at, i);
  }
}
