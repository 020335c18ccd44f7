package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.nvml.GpuInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * GPU pods through the whole system: the hami-scheduler with the shipped profile places them, node
 * agents over fake GPUs answer the fake kubelets' Allocate, and after every scenario the
 * annotations on the nodes used must show no over-committed device.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class GpuSchedulingE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();

  private GpuNode node(KubernetesClient client, String name, int splitCount, GpuInfo... gpus)
      throws Exception {
    GpuNode n = GpuNode.start(client, dir, name, splitCount, List.of(gpus));
    nodes.add(n);
    return n;
  }

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private static Pod create(KubernetesClient client, TestNamespace ns, GpuPods pod) {
    return client.pods().inNamespace(ns.name()).resource(pod.build()).create();
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  private static Optional<PodCondition> scheduled(Pod pod) {
    return pod.getStatus() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()))
            .findFirst();
  }

  private static Pod awaitAllocated(KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> get(client, ns, name),
            p ->
                p.getMetadata().getAnnotations() != null
                    && "success"
                        .equals(p.getMetadata().getAnnotations().get(Annotations.BIND_PHASE))
                    && "Running".equals(p.getStatus().getPhase()));
  }

  private static PodCondition awaitUnschedulable(
      KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> scheduled(get(client, ns, name)),
            c -> c.isPresent() && "False".equals(c.get().getStatus()))
        .orElseThrow();
  }

  @Test
  void plainGpuPod_isScheduledBoundAndAllocatedWithItsLimits(
      KubernetesClient client, TestNamespace ns) throws Exception {
    GpuInfo gpu0 = GpuNode.gpu(0, 15360);
    GpuInfo gpu1 = GpuNode.gpu(1, 15360);
    GpuNode node = node(client, ns.name() + "-plain", 10, gpu0, gpu1);

    Pod created = create(client, ns, GpuPods.named("plain").gpu(1, 4000, 30).on(node.name()));
    Pod pod = awaitAllocated(client, ns, "plain");

    assertThat(pod.getSpec().getNodeName()).isEqualTo(node.name());
    Map<String, String> a = pod.getMetadata().getAnnotations();
    assertThat(a)
        .containsEntry(Annotations.VGPU_NODE, node.name())
        .containsEntry(Annotations.BIND_PHASE, "success")
        .containsKey(Annotations.SCHEDULE_EXPLAIN);
    // Carried by the Binding: kube-apiserver 1.36 copies its annotations and labels onto the pod.
    assertThat(pod.getMetadata().getLabels()).containsEntry(Annotations.VGPU_NODE, node.name());
    List<List<Invariants.Use>> devices =
        Invariants.parseDevices(a.get(Annotations.VGPU_DEVICES_ALLOCATED));
    assertThat(devices)
        .singleElement()
        .satisfies(
            c ->
                assertThat(c)
                    .singleElement()
                    .satisfies(
                        u -> {
                          assertThat(u.uuid()).isIn(gpu0.uuid(), gpu1.uuid());
                          assertThat(u.type()).isEqualTo("NVIDIA");
                          assertThat(u.mem()).isEqualTo(4000);
                          assertThat(u.cores()).isEqualTo(30);
                        }));
    assertThat(scheduled(pod)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    await().atMost(PATIENCE).until(() -> !node.locked());

    ContainerAllocateResponse cuda = node.allocation(created.getMetadata().getUid()).get("cuda");
    assertThat(cuda).as("Allocate response for container cuda").isNotNull();
    assertThat(cuda.getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", devices.get(0).get(0).uuid())
        .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "4000m")
        .containsEntry("CUDA_DEVICE_SM_LIMIT", "30");
    assertThat(node.allocateErrors()).isEmpty();
  }

  @Test
  void fractionalPods_packOneGpu_andTheOneThatDoesNotFitWaitsWithTheReason(
      KubernetesClient client, TestNamespace ns) throws Exception {
    GpuInfo gpu = GpuNode.gpu(0, 16000);
    GpuNode node = node(client, ns.name() + "-pack", 10, gpu);

    for (int i = 0; i < 4; i++) {
      create(client, ns, GpuPods.named("share-" + i).gpu(1, 4000, 20).on(node.name()));
    }
    for (int i = 0; i < 4; i++) {
      Pod p = awaitAllocated(client, ns, "share-" + i);
      assertThat(
              Invariants.parseDevices(
                  p.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED)))
          .singleElement()
          .satisfies(
              c -> assertThat(c).extracting(Invariants.Use::uuid).containsExactly(gpu.uuid()));
    }

    create(client, ns, GpuPods.named("too-much").gpu(1, 4000, 20).on(node.name()));
    PodCondition c = awaitUnschedulable(client, ns, "too-much");
    System.out.println("e2e: pod that does not fit: " + c.getMessage());

    assertThat(c.getReason()).isEqualTo("Unschedulable");
    // Equal priorities: preemption finds no victim, in kube-scheduler's words.
    assertThat(c.getMessage())
        .isEqualTo(
            "0/1 nodes are available: 1 CardInsufficientMemory. preemption: 0/1 nodes are"
                + " available: 1 No preemption victims found for incoming pod..");
    Pod pending = get(client, ns, "too-much");
    assertThat(pending.getSpec().getNodeName()).isNull();
    assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(node.allocateErrors()).isEmpty();
  }

  @Test
  void deletingAPod_freesItsShareForAPendingPod(KubernetesClient client, TestNamespace ns)
      throws Exception {
    GpuInfo gpu = GpuNode.gpu(0, 8000);
    GpuNode node = node(client, ns.name() + "-free", 10, gpu);

    create(client, ns, GpuPods.named("first").gpu(1, 6000, 50).on(node.name()));
    awaitAllocated(client, ns, "first");
    create(client, ns, GpuPods.named("second").gpu(1, 6000, 50).on(node.name()));
    awaitUnschedulable(client, ns, "second");

    long start = System.nanoTime();
    client.pods().inNamespace(ns.name()).withName("first").delete();
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> node.name().equals(get(client, ns, "second").getSpec().getNodeName()));
    Duration bound = Duration.ofNanos(System.nanoTime() - start);
    System.out.printf(
        "e2e: pending pod bound %d ms after the pod holding its share was deleted%n",
        bound.toMillis());

    Pod second = awaitAllocated(client, ns, "second");
    assertThat(get(client, ns, "first")).isNull();
    assertThat(
            Invariants.parseDevices(
                second.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED)))
        .singleElement()
        .satisfies(c -> assertThat(c).extracting(Invariants.Use::uuid).containsExactly(gpu.uuid()));
    assertThat(bound).as("time from delete to bind").isLessThan(Duration.ofSeconds(10));
  }
}
