package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The pods of a workload: shape {@code i} drawn by weight from a seeded generator, so two runs (and
 * the scheduler and ceiling phases of one run) create the same mix.
 */
final class BenchPods {
  static final String SCHEDULER_NAME = "hami-scheduler";
  static final String GROUP_LABEL = "bench.hami.io/group";

  private final Workload.Pods pods;
  private final int[] cumulative;

  BenchPods(Workload.Pods pods) {
    this.pods = pods;
    cumulative = new int[pods.shapes().size()];
    int sum = 0;
    for (int i = 0; i < cumulative.length; i++) {
      sum += pods.shapes().get(i).weight();
      cumulative[i] = sum;
    }
  }

  /** The shapes of {@code count} pods, drawn with {@code seed}. */
  List<Workload.Shape> draw(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int total = cumulative[cumulative.length - 1];
    List<Workload.Shape> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int r = random.nextInt(total);
      int k = 0;
      while (cumulative[k] <= r) {
        k++;
      }
      out.add(pods.shapes().get(k));
    }
    return out;
  }

  /** A pod of {@code shape} for the scheduler under test. */
  static Pod pod(String namespace, String name, String group, Workload.Shape shape) {
    return pod(namespace, name, group, shape, SCHEDULER_NAME);
  }

  /** A pod of {@code shape} for {@code schedulerName}. */
  static Pod pod(
      String namespace, String name, String group, Workload.Shape shape, String schedulerName) {
    Map<String, Quantity> limits =
        Map.of(
            "nvidia.com/gpu", new Quantity(Integer.toString(shape.gpus())),
            "nvidia.com/gpumem", new Quantity(Integer.toString(shape.memoryMiB())),
            "nvidia.com/gpucores", new Quantity(Integer.toString(shape.cores())));
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .withLabels(Map.of(GROUP_LABEL, group, "bench.hami.io/shape", shape.name()))
            .endMetadata()
            .withNewSpec()
            .withSchedulerName(schedulerName)
            .withAutomountServiceAccountToken(false)
            .withTerminationGracePeriodSeconds(0L)
            .endSpec();
    for (int c = 0; c < shape.containers(); c++) {
      b.editSpec()
          .addToContainers(
              new ContainerBuilder()
                  .withName("cuda-" + c)
                  .withImage("nvidia/cuda:12.4.0-base-ubuntu22.04")
                  .withNewResources()
                  .withLimits(limits)
                  .endResources()
                  .build())
          .endSpec();
    }
    return b.build();
  }

  /**
   * The pod of {@code shape} with its GPU requests taken out: the same containers, with no resource
   * requests or limits, for the phases that measure scheduling without GPUs.
   */
  static Pod withoutGpus(
      String namespace, String name, String group, Workload.Shape shape, String schedulerName) {
    Pod pod = pod(namespace, name, group, shape, schedulerName);
    pod.getSpec().getContainers().forEach(c -> c.setResources(null));
    return pod;
  }

  /** A shape no node can take: more memory per GPU than any GPU has. */
  static Workload.Shape unschedulableShape(int gpuMemoryMiB) {
    return new Workload.Shape("unschedulable", 1, 1, 1, gpuMemoryMiB + 1, 0);
  }
}
