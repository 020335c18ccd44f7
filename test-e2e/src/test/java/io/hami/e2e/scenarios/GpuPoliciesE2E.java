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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Placement policies chosen per pod by annotation, and a node whose register annotation is
 * malformed next to a healthy one.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class GpuPoliciesE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String GROUP = "e2e.hami.io/group";

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();
  private final List<String> bareNodes = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    try {
      Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
    } finally {
      bareNodes.forEach(n -> client.nodes().withName(n).delete());
      bareNodes.clear();
    }
  }

  private GpuNode node(KubernetesClient client, String name, String group, GpuInfo... gpus)
      throws Exception {
    GpuNode n =
        GpuNode.start(client, dir, FakeNode.named(name).label(GROUP, group), 10, List.of(gpus));
    nodes.add(n);
    return n;
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  private static Pod run(KubernetesClient client, TestNamespace ns, GpuPods pod, String name) {
    client.pods().inNamespace(ns.name()).resource(pod.build()).create();
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

  private static String deviceOf(Pod pod) {
    return Invariants.parseDevices(
            pod.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED))
        .get(0)
        .get(0)
        .uuid();
  }

  private static void deleteAndWait(KubernetesClient client, TestNamespace ns, String... names) {
    for (String n : names) {
      client.pods().inNamespace(ns.name()).withName(n).delete();
    }
    await()
        .atMost(PATIENCE)
        .until(
            () -> {
              for (String n : names) {
                if (get(client, ns, n) != null) {
                  return false;
                }
              }
              return true;
            });
  }

  @Test
  void gpuPolicyAnnotation_binpackSharesAGpu_spreadUsesAnother(
      KubernetesClient client, TestNamespace ns) throws Exception {
    GpuInfo gpu0 = GpuNode.gpu(0, 16000);
    GpuInfo gpu1 = GpuNode.gpu(1, 16000);
    GpuNode node = node(client, ns.name() + "-gpupol", "gpupol", gpu0, gpu1);

    Pod b1 =
        run(
            client,
            ns,
            GpuPods.named("binpack-1")
                .gpu(1, 2000, 10)
                .on(node.name())
                .annotation(Annotations.GPU_SCHEDULER_POLICY, "binpack"),
            "binpack-1");
    Pod b2 =
        run(
            client,
            ns,
            GpuPods.named("binpack-2")
                .gpu(1, 2000, 10)
                .on(node.name())
                .annotation(Annotations.GPU_SCHEDULER_POLICY, "binpack"),
            "binpack-2");
    assertThat(deviceOf(b2))
        .as("binpack puts the second pod on the first pod's GPU")
        .isEqualTo(deviceOf(b1));
    deleteAndWait(client, ns, "binpack-1", "binpack-2");

    Pod s1 =
        run(
            client,
            ns,
            GpuPods.named("spread-1")
                .gpu(1, 2000, 10)
                .on(node.name())
                .annotation(Annotations.GPU_SCHEDULER_POLICY, "spread"),
            "spread-1");
    Pod s2 =
        run(
            client,
            ns,
            GpuPods.named("spread-2")
                .gpu(1, 2000, 10)
                .on(node.name())
                .annotation(Annotations.GPU_SCHEDULER_POLICY, "spread"),
            "spread-2");
    assertThat(deviceOf(s2))
        .as("spread puts the second pod on the idle GPU")
        .isNotEqualTo(deviceOf(s1));
    assertThat(Set.of(deviceOf(s1), deviceOf(s2)))
        .containsExactlyInAnyOrder(gpu0.uuid(), gpu1.uuid());
  }

  @Test
  void nodePolicyAnnotation_binpackSharesANode_spreadUsesAnother(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String group = "nodepol";
    node(client, ns.name() + "-nodepol-a", group, GpuNode.gpu(0, 16000));
    node(client, ns.name() + "-nodepol-b", group, GpuNode.gpu(0, 16000));

    Pod b1 =
        run(
            client,
            ns,
            GpuPods.named("binpack-1")
                .gpu(1, 2000, 10)
                .selector(GROUP, group)
                .annotation(Annotations.NODE_SCHEDULER_POLICY, "binpack"),
            "binpack-1");
    Pod b2 =
        run(
            client,
            ns,
            GpuPods.named("binpack-2")
                .gpu(1, 2000, 10)
                .selector(GROUP, group)
                .annotation(Annotations.NODE_SCHEDULER_POLICY, "binpack"),
            "binpack-2");
    assertThat(b2.getSpec().getNodeName())
        .as("binpack keeps the second pod on the busy node")
        .isEqualTo(b1.getSpec().getNodeName());
    deleteAndWait(client, ns, "binpack-1", "binpack-2");

    Pod s1 =
        run(
            client,
            ns,
            GpuPods.named("spread-1")
                .gpu(1, 2000, 10)
                .selector(GROUP, group)
                .annotation(Annotations.NODE_SCHEDULER_POLICY, "spread"),
            "spread-1");
    Pod s2 =
        run(
            client,
            ns,
            GpuPods.named("spread-2")
                .gpu(1, 2000, 10)
                .selector(GROUP, group)
                .annotation(Annotations.NODE_SCHEDULER_POLICY, "spread"),
            "spread-2");
    assertThat(s2.getSpec().getNodeName())
        .as("spread sends the second pod to the idle node")
        .isNotEqualTo(s1.getSpec().getNodeName());
  }

  @Test
  void malformedRegisterOnOneNode_leavesTheOthersSchedulable(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String group = "malformed";
    String broken = ns.name() + "-broken";
    FakeNode.named(broken).label(GROUP, group).resource("nvidia.com/gpu", "10").register(client);
    bareNodes.add(broken);
    client
        .nodes()
        .withName(broken)
        .edit(
            n -> {
              n.getMetadata()
                  .setAnnotations(
                      Map.of(
                          Annotations.NODE_NVIDIA_REGISTER,
                              "[{\"id\":\"GPU-broken\",\"count\":\"ten\"",
                          Annotations.NODE_HANDSHAKE, "Reported 2099-01-01 00:00:00"));
              return n;
            });
    GpuNode healthy = node(client, ns.name() + "-healthy", group, GpuNode.gpu(0, 16000));

    for (int i = 0; i < 3; i++) {
      Pod p =
          run(
              client,
              ns,
              GpuPods.named("ok-" + i).gpu(1, 2000, 10).selector(GROUP, group),
              "ok-" + i);
      assertThat(p.getSpec().getNodeName()).isEqualTo(healthy.name());
    }

    client
        .pods()
        .inNamespace(ns.name())
        .resource(GpuPods.named("pinned").gpu(1, 2000, 10).on(broken).build())
        .create();
    PodCondition c =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> scheduled(get(client, ns, "pinned")),
                o -> o.isPresent() && "False".equals(o.get().getStatus()))
            .orElseThrow();
    System.out.println("e2e: pod pinned to the malformed node: " + c.getMessage());
    assertThat(get(client, ns, "pinned").getSpec().getNodeName()).isNull();
    assertThat(c.getMessage())
        .startsWith("0/2 nodes are available:")
        .contains("1 NodeAnnotationInvalid");
    assertThat(client.nodes().withName(broken).get().getMetadata().getAnnotations())
        .as("the scheduler leaves a node it cannot read as it is")
        .containsEntry(
            Annotations.NODE_NVIDIA_REGISTER, "[{\"id\":\"GPU-broken\",\"count\":\"ten\"");

    Pod after =
        run(
            client,
            ns,
            GpuPods.named("ok-after").gpu(1, 2000, 10).selector(GROUP, group),
            "ok-after");
    assertThat(after.getSpec().getNodeName()).isEqualTo(healthy.name());
  }

  private static Optional<PodCondition> scheduled(Pod pod) {
    return pod.getStatus() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()))
            .findFirst();
  }
}
