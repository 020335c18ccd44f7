package io.hami.e2e.scenarios;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds GPU pods for the hami-scheduler, pinned to one node by its hostname label. */
final class GpuPods {
  private final String name;
  private final Map<String, Quantity> limits = new LinkedHashMap<>();
  private final Map<String, String> annotations = new LinkedHashMap<>();
  private String node = "";
  private final Map<String, String> selector = new LinkedHashMap<>();

  private GpuPods(String name) {
    this.name = name;
  }

  static GpuPods named(String name) {
    return new GpuPods(name);
  }

  /** {@code gpus} vGPUs, each with {@code memMiB} MiB and {@code cores}% of the cores. */
  GpuPods gpu(int gpus, int memMiB, int cores) {
    limits.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
    limits.put("nvidia.com/gpumem", new Quantity(Integer.toString(memMiB)));
    limits.put("nvidia.com/gpucores", new Quantity(Integer.toString(cores)));
    return this;
  }

  GpuPods on(String nodeName) {
    this.node = nodeName;
    return this;
  }

  /** Restricts the pod to nodes labelled {@code key=value}. */
  GpuPods selector(String key, String value) {
    selector.put(key, value);
    return this;
  }

  GpuPods annotation(String key, String value) {
    annotations.put(key, value);
    return this;
  }

  Pod build() {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withAnnotations(Map.copyOf(annotations))
            .endMetadata()
            .withNewSpec()
            .withSchedulerName("hami-scheduler")
            .withTerminationGracePeriodSeconds(1L)
            .addNewContainer()
            .withName("cuda")
            .withImage("nvidia/cuda:12.4.0-base-ubuntu22.04")
            .withNewResources()
            .withLimits(Map.copyOf(limits))
            .endResources()
            .endContainer()
            .endSpec();
    Map<String, String> nodeSelector = new LinkedHashMap<>(selector);
    if (!node.isEmpty()) {
      nodeSelector.put("kubernetes.io/hostname", node);
    }
    if (!nodeSelector.isEmpty()) {
      b.editSpec().withNodeSelector(nodeSelector).endSpec();
    }
    return b.build();
  }
}
