package io.hami.e2e.scenarios;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.PodSchedulingGroupBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Builds GPU pods for the hami-scheduler, pinned to one node by its hostname label. */
final class GpuPods {
  /** {@code terminationGracePeriodSeconds} of every pod built here. */
  static final long TERMINATION_GRACE_SECONDS = 1;

  private final String name;
  private final Map<String, Quantity> limits = new LinkedHashMap<>();
  private final Map<String, String> annotations = new LinkedHashMap<>();
  private String node = "";
  private final Map<String, String> selector = new LinkedHashMap<>();
  private String schedulerName = "hami-scheduler";
  private @Nullable String priorityClassName;
  private @Nullable String podGroupName;
  private final List<String> gates = new ArrayList<>();

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

  /** Leaves the pod to the scheduler of that name instead of the shipped {@code hami-scheduler}. */
  GpuPods schedulerName(String name) {
    this.schedulerName = name;
    return this;
  }

  /** {@code spec.priorityClassName}; the apiserver's Priority admission fills in the rest. */
  GpuPods priorityClass(String name) {
    this.priorityClassName = name;
    return this;
  }

  /** {@code spec.schedulingGroup.podGroupName}: a member of that {@code PodGroup}. */
  GpuPods podGroup(String name) {
    this.podGroupName = name;
    return this;
  }

  /** Adds a scheduling gate: the scheduler leaves the pod alone until the gate is removed. */
  GpuPods gate(String name) {
    gates.add(name);
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
            .withSchedulerName(schedulerName)
            .withPriorityClassName(priorityClassName)
            .withTerminationGracePeriodSeconds(TERMINATION_GRACE_SECONDS)
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
    if (podGroupName != null) {
      b.editSpec()
          .withSchedulingGroup(
              new PodSchedulingGroupBuilder().withPodGroupName(podGroupName).build())
          .endSpec();
    }
    if (!gates.isEmpty()) {
      b.editSpec()
          .withSchedulingGates(gates.stream().map(PodSchedulingGate::new).toList())
          .endSpec();
    }
    return b.build();
  }
}
