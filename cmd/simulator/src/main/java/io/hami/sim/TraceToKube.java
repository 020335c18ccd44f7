package io.hami.sim;

import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.model.Annotations;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns trace nodes and pods into Kubernetes objects as HAMi sees them.
 *
 * <p>A node gets its CPU and memory as allocatable and one register-annotation device per GPU: type
 * {@code NVIDIA-<model>}, {@link #SHARE_SLOTS} share slots, 100 cores and the memory of {@link
 * #memoryMiB}. A pod asks for {@code nvidia.com/gpu} = k and, per GPU, {@code nvidia.com/gpucores}
 * and {@code nvidia.com/gpumem-percentage} of {@code gpu_milli / 10}, so that its share of any card
 * is exactly {@code gpu_milli} when that is a multiple of 10 (it is for every openb trace; other
 * values round up to the next percent). {@code gpu_spec} becomes {@code nvidia.com/use-gputype}.
 * CPU and memory are requests.
 */
public final class TraceToKube {

  /** Share slots per card: enough for the smallest openb share (50 milli) and then some. */
  public static final int SHARE_SLOTS = 100;

  /**
   * GPU memory per openb model, in MiB. Only fractions of a card matter to the replay, so the
   * undisclosed models G1–G3 get a nominal 32 GiB.
   */
  private static final ImmutableMap<String, Integer> MEMORY_MIB =
      ImmutableMap.of(
          "P100", 16_384,
          "T4", 15_360,
          "V100M16", 16_384,
          "V100M32", 32_768,
          "A10", 23_028,
          "G1", 32_768,
          "G2", 32_768,
          "G3", 32_768);

  private TraceToKube() {}

  /** Memory of one card of the model in MiB (a nominal 32 GiB for models not in the table). */
  public static int memoryMiB(String model) {
    return MEMORY_MIB.getOrDefault(model, 32_768);
  }

  /** The device type string registered for a model. */
  public static String deviceType(String model) {
    return model.regionMatches(true, 0, "NVIDIA", 0, 6) ? model : "NVIDIA-" + model;
  }

  public static Node node(TraceNode n) {
    Map<String, String> annotations = new LinkedHashMap<>();
    if (n.gpus() > 0) {
      List<NodeDevice> devices = new ArrayList<>();
      for (int g = 0; g < n.gpus(); g++) {
        devices.add(
            NodeDevice.of(
                "GPU-" + n.name() + "-" + g,
                g,
                SHARE_SLOTS,
                memoryMiB(n.model()),
                100,
                deviceType(n.model()),
                0,
                NodeDevice.MODE_HAMI_CORE,
                true));
      }
      annotations.put(Annotations.NODE_NVIDIA_REGISTER, NodeDeviceJson.encode(devices));
    }
    Map<String, Quantity> allocatable = new LinkedHashMap<>();
    allocatable.put("cpu", new Quantity(n.cpuMilli() + "m"));
    allocatable.put("memory", new Quantity(n.memMiB() + "Mi"));
    allocatable.put("pods", new Quantity("1001"));
    if (n.gpus() > 0) {
      allocatable.put("nvidia.com/gpu", new Quantity(Integer.toString(n.gpus() * SHARE_SLOTS)));
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName(n.name())
        .withAnnotations(annotations)
        .endMetadata()
        .withNewStatus()
        .withAllocatable(allocatable)
        .withCapacity(allocatable)
        .endStatus()
        .build();
  }

  public static Pod pod(TracePod p, String namespace, String schedulerName) {
    Map<String, Quantity> requests = new LinkedHashMap<>();
    requests.put("cpu", new Quantity(p.cpuMilli() + "m"));
    requests.put("memory", new Quantity(p.memMiB() + "Mi"));
    Map<String, Quantity> limits = new LinkedHashMap<>();
    Map<String, String> annotations = new LinkedHashMap<>();
    if (p.gpuCount() > 0) {
      int pct = Math.max(1, (p.gpuMilli() + 9) / 10);
      limits.put("nvidia.com/gpu", new Quantity(Integer.toString(p.gpuCount())));
      limits.put("nvidia.com/gpucores", new Quantity(Integer.toString(pct)));
      limits.put("nvidia.com/gpumem-percentage", new Quantity(Integer.toString(pct)));
      if (!p.models().isEmpty()) {
        annotations.put(Annotations.NVIDIA_USE_GPUTYPE, String.join(",", p.models()));
      }
    }
    return new PodBuilder()
        .withNewMetadata()
        .withName(p.name())
        .withNamespace(namespace)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(schedulerName)
        .addNewContainer()
        .withName("main")
        .withImage("sim")
        .withNewResources()
        .withRequests(requests)
        .withLimits(limits)
        .endResources()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }
}
