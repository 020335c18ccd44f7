package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import io.hami.nodeagent.nvml.GpuInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Device selection by pod annotation: GPU model ({@code nvidia.com/use-gputype}, {@code
 * nouse-gputype}), GPU UUID ({@code use-gpuuuid}, {@code nouse-gpuuuid}) and NUMA binding ({@code
 * nvidia.com/numa-bind}). Satisfiable selections land on the devices asked for; impossible ones
 * stay Pending with the HAMi reason in the PodScheduled condition.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class GpuSelectionE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String GROUP = "e2e.hami.io/group";

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private static GpuInfo gpu(int index, String model, int numa) {
    return new GpuInfo(
        index,
        "GPU-" + UUID.randomUUID(),
        model,
        16000,
        String.format("00000000:%02X:00.0", 0x18 + index),
        numa,
        false);
  }

  private GpuNode node(KubernetesClient client, String name, String group, List<GpuInfo> gpus)
      throws Exception {
    GpuNode n = GpuNode.start(client, dir, FakeNode.named(name).label(GROUP, group), 10, gpus);
    nodes.add(n);
    return n;
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  private static Pod run(KubernetesClient client, TestNamespace ns, GpuPods pod) {
    Pod created = client.pods().inNamespace(ns.name()).resource(pod.build()).create();
    String name = created.getMetadata().getName();
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

  private static PodCondition pending(KubernetesClient client, TestNamespace ns, GpuPods pod) {
    Pod created = client.pods().inNamespace(ns.name()).resource(pod.build()).create();
    String name = created.getMetadata().getName();
    PodCondition c =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> scheduled(get(client, ns, name)),
                o -> o.isPresent() && "False".equals(o.get().getStatus()))
            .orElseThrow();
    System.out.println("e2e: " + name + " stays pending: " + c.getMessage());
    Pod p = get(client, ns, name);
    assertThat(p.getSpec().getNodeName()).as("%s is not bound", name).isNull();
    assertThat(p.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(c.getReason()).isEqualTo("Unschedulable");
    return c;
  }

  private static Optional<PodCondition> scheduled(Pod pod) {
    return pod.getStatus() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()))
            .findFirst();
  }

  /** The UUIDs of every device of every container, in annotation order. */
  private static List<String> devices(Pod pod) {
    List<String> out = new ArrayList<>();
    Invariants.parseDevices(
            pod.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED))
        .forEach(c -> c.forEach(u -> out.add(u.uuid())));
    return out;
  }

  private static List<String> uuids(List<GpuInfo> gpus) {
    return gpus.stream().map(GpuInfo::uuid).toList();
  }

  @Test
  void gpuTypeAnnotations_pickTheModel_andAnUnknownModelWaitsWithCardTypeMismatch(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String group = "gputype";
    List<GpuInfo> t4 = List.of(gpu(0, "Tesla T4", 0), gpu(1, "Tesla T4", 0));
    List<GpuInfo> a100 =
        List.of(gpu(0, "NVIDIA A100-SXM4-40GB", 0), gpu(1, "NVIDIA A100-SXM4-40GB", 0));
    GpuNode t4Node = node(client, ns.name() + "-t4", group, t4);
    GpuNode a100Node = node(client, ns.name() + "-a100", group, a100);

    for (int i = 0; i < 2; i++) {
      Pod p =
          run(
              client,
              ns,
              GpuPods.named("use-a100-" + i)
                  .gpu(1, 1000, 10)
                  .selector(GROUP, group)
                  .annotation(Annotations.NVIDIA_USE_GPUTYPE, "a100"));
      assertThat(p.getSpec().getNodeName())
          .as("use-gputype a100 (case-insensitive)")
          .isEqualTo(a100Node.name());
      assertThat(devices(p)).singleElement().isIn(uuids(a100));

      Pod q =
          run(
              client,
              ns,
              GpuPods.named("use-t4-list-" + i)
                  .gpu(1, 1000, 10)
                  .selector(GROUP, group)
                  .annotation(Annotations.NVIDIA_USE_GPUTYPE, "V100, T4"));
      assertThat(q.getSpec().getNodeName())
          .as("use-gputype list with one present model")
          .isEqualTo(t4Node.name());
      assertThat(devices(q)).singleElement().isIn(uuids(t4));

      Pod r =
          run(
              client,
              ns,
              GpuPods.named("nouse-a100-" + i)
                  .gpu(2, 1000, 10)
                  .selector(GROUP, group)
                  .annotation(Annotations.NVIDIA_NOUSE_GPUTYPE, "A100"));
      assertThat(r.getSpec().getNodeName()).as("nouse-gputype A100").isEqualTo(t4Node.name());
      assertThat(devices(r)).containsExactlyInAnyOrderElementsOf(uuids(t4));
    }

    PodCondition unknown =
        pending(
            client,
            ns,
            GpuPods.named("use-h100")
                .gpu(1, 1000, 10)
                .selector(GROUP, group)
                .annotation(Annotations.NVIDIA_USE_GPUTYPE, "H100"));
    assertThat(unknown.getMessage()).contains("2 CardTypeMismatch");

    PodCondition neither =
        pending(
            client,
            ns,
            GpuPods.named("use-a100-nouse-a100")
                .gpu(1, 1000, 10)
                .selector(GROUP, group)
                .annotation(Annotations.NVIDIA_USE_GPUTYPE, "A100")
                .annotation(Annotations.NVIDIA_NOUSE_GPUTYPE, "SXM4"));
    assertThat(neither.getMessage()).contains("2 CardTypeMismatch");
  }

  @Test
  void gpuUuidAnnotations_pickTheDevice_andAnAbsentUuidWaitsWithCardUuidMismatch(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String group = "gpuuuid";
    List<GpuInfo> aGpus = List.of(gpu(0, "Tesla T4", 0), gpu(1, "Tesla T4", 0));
    List<GpuInfo> bGpus =
        List.of(gpu(0, "NVIDIA A100-SXM4-40GB", 0), gpu(1, "NVIDIA A100-SXM4-40GB", 0));
    GpuNode a = node(client, ns.name() + "-uuid-a", group, aGpus);
    GpuNode b = node(client, ns.name() + "-uuid-b", group, bGpus);

    String wanted = bGpus.get(1).uuid();
    for (int i = 0; i < 3; i++) {
      Pod p =
          run(
              client,
              ns,
              GpuPods.named("use-uuid-" + i)
                  .gpu(1, 1000, 10)
                  .selector(GROUP, group)
                  .annotation(Annotations.NVIDIA_USE_GPUUUID, " GPU-not-here , " + wanted + " "));
      assertThat(p.getSpec().getNodeName()).isEqualTo(b.name());
      assertThat(devices(p)).as("use-gpuuuid, items trimmed").containsExactly(wanted);
    }

    String excluded = String.join(",", uuids(bGpus)) + "," + aGpus.get(0).uuid();
    for (int i = 0; i < 2; i++) {
      Pod p =
          run(
              client,
              ns,
              GpuPods.named("nouse-uuid-" + i)
                  .gpu(1, 1000, 10)
                  .selector(GROUP, group)
                  .annotation(Annotations.NVIDIA_NOUSE_GPUUUID, excluded));
      assertThat(p.getSpec().getNodeName()).isEqualTo(a.name());
      assertThat(devices(p))
          .as("nouse-gpuuuid leaves one device")
          .containsExactly(aGpus.get(1).uuid());
    }

    PodCondition absent =
        pending(
            client,
            ns,
            GpuPods.named("use-absent")
                .gpu(1, 1000, 10)
                .selector(GROUP, group)
                .annotation(
                    Annotations.NVIDIA_USE_GPUUUID, "GPU-00000000-0000-0000-0000-000000000000"));
    assertThat(absent.getMessage()).contains("2 CardUuidMismatch");

    PodCondition overruled =
        pending(
            client,
            ns,
            GpuPods.named("use-and-nouse")
                .gpu(1, 1000, 10)
                .selector(GROUP, group)
                .annotation(Annotations.NVIDIA_USE_GPUUUID, wanted)
                .annotation(Annotations.NVIDIA_NOUSE_GPUUUID, wanted));
    assertThat(overruled.getMessage()).as("nouse runs after use").contains("2 CardUuidMismatch");

    PodCondition twoFromOne =
        pending(
            client,
            ns,
            GpuPods.named("two-of-one")
                .gpu(2, 1000, 10)
                .selector(GROUP, group)
                .annotation(Annotations.NVIDIA_USE_GPUUUID, wanted));
    assertThat(twoFromOne.getMessage())
        .as("two GPUs when only one UUID may be used")
        .contains("CardUuidMismatch");
  }

  @Test
  void numaBind_keepsAContainerOnOneNumaNode_andRefusesMoreGpusThanANumaNodeHas(
      KubernetesClient client, TestNamespace ns) throws Exception {
    List<GpuInfo> gpus =
        List.of(
            gpu(0, "NVIDIA H100 80GB HBM3", 0),
            gpu(1, "NVIDIA H100 80GB HBM3", 0),
            gpu(2, "NVIDIA H100 80GB HBM3", 1),
            gpu(3, "NVIDIA H100 80GB HBM3", 1));
    Map<String, Integer> numaOf = new HashMap<>();
    gpus.forEach(g -> numaOf.put(g.uuid(), g.numaNode()));
    GpuNode node = node(client, ns.name() + "-numa", "numa", gpus);

    for (String policy : List.of("spread", "binpack")) {
      for (int i = 0; i < 2; i++) {
        String name = "bound-" + policy + "-" + i;
        Pod p =
            run(
                client,
                ns,
                GpuPods.named(name)
                    .gpu(2, 1000, 10)
                    .on(node.name())
                    .annotation(Annotations.NVIDIA_NUMA_BIND, "true")
                    .annotation(Annotations.GPU_SCHEDULER_POLICY, policy));
        List<String> used = devices(p);
        assertThat(used).hasSize(2).doesNotHaveDuplicates();
        assertThat(used.stream().map(numaOf::get).distinct())
            .as("%s: NUMA nodes of %s", name, used)
            .hasSize(1);
      }
    }

    PodCondition c =
        pending(
            client,
            ns,
            GpuPods.named("three-bound")
                .gpu(3, 1000, 10)
                .on(node.name())
                .annotation(Annotations.NVIDIA_NUMA_BIND, "true"));
    assertThat(c.getMessage()).startsWith("0/").contains("NumaNotFit");

    Pod unbound = run(client, ns, GpuPods.named("three-unbound").gpu(3, 1000, 10).on(node.name()));
    assertThat(devices(unbound))
        .as("without numa-bind three GPUs fit across NUMA nodes")
        .hasSize(3)
        .doesNotHaveDuplicates();
    assertThat(devices(unbound).stream().map(numaOf::get).distinct()).hasSize(2);
    assertThat(get(client, ns, "three-bound").getSpec().getNodeName()).isNull();
  }
}
