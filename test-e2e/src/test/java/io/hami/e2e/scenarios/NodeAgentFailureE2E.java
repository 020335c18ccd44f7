package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.GpuNode;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node agent that dies. Its device plugin leaves kubelet, which marks the devices Unhealthy
 * and publishes allocatable {@code nvidia.com/gpu: 0}; the scheduler then treats the node as
 * unhealthy (HAMi v2.8+ NVIDIA semantics, protocol §3.3: health follows allocatable, the
 * handshake's 60 s {@code Requesting_} expiry only matters while allocatable stays 0, so there
 * is no timeout to wait for). New pods go elsewhere or wait; pods already running are untouched;
 * when the agent comes back the waiting pod is placed there.
 */
@ExtendWith(ControlPlaneExtension.class)
class NodeAgentFailureE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String GROUP = "e2e.hami.io/agent-failure";

  @TempDir static Path dir;
  private static Scheduler scheduler;
  private final List<GpuNode> nodes = new ArrayList<>();

  @BeforeAll
  static void startScheduler(KubernetesClient client) throws Exception {
    scheduler = Scheduler.start(client);
  }

  @AfterAll
  static void stopScheduler() {
    if (scheduler != null) {
      scheduler.close();
    }
  }

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private GpuNode node(KubernetesClient client, String name, String group) throws Exception {
    GpuNode n = GpuNode.start(client, dir, FakeNode.named(name).label(GROUP, group), 10, List.of(GpuNode.gpu(0, 16000)));
    nodes.add(n);
    return n;
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  private static boolean allocatedAndRunning(Pod p) {
    return p != null
        && p.getMetadata().getAnnotations() != null
        && "success".equals(p.getMetadata().getAnnotations().get(Annotations.BIND_PHASE))
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase());
  }

  private static Pod awaitRunning(KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> get(client, ns, name), NodeAgentFailureE2E::allocatedAndRunning);
  }

  private static Optional<PodCondition> scheduled(Pod pod) {
    return pod.getStatus() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType())).findFirst();
  }

  private static long allocatable(KubernetesClient client, String node) {
    Node n = client.nodes().withName(node).get();
    Quantity q = n.getStatus().getAllocatable() == null ? null : n.getStatus().getAllocatable().get(GpuNode.RESOURCE);
    return q == null ? -1 : q.getNumericalAmount().longValue();
  }

  private static double seconds(long fromNanos) {
    return (System.nanoTime() - fromNanos) / 1e9;
  }

  @Test
  void deadAgent_takesItsNodeOutOfScheduling_andItsReturnBringsItBack(KubernetesClient client, TestNamespace ns)
      throws Exception {
    GpuNode a = node(client, ns.name() + "-a", ns.name());
    GpuNode b = node(client, ns.name() + "-b", ns.name());

    client.pods().inNamespace(ns.name()).resource(GpuPods.named("before").gpu(1, 4000, 20).on(a.name()).build()).create();
    Pod before = awaitRunning(client, ns, "before");
    String beforeDevices = before.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED);
    await().atMost(PATIENCE).until(() -> !a.locked());

    long stopped = System.nanoTime();
    a.stopAgent();
    await().atMost(PATIENCE).pollInterval(Duration.ofMillis(20)).until(() -> allocatable(client, a.name()) == 0);
    double left = seconds(stopped);
    assertThat(a.annotations()).as("the register annotation of a dead agent stays").containsKey(Annotations.NODE_NVIDIA_REGISTER);

    // A pod that can only go to the node waits, with the reason; one that can go anywhere goes to the other.
    long probed = System.nanoTime();
    client.pods().inNamespace(ns.name()).resource(GpuPods.named("pinned").gpu(1, 4000, 20).on(a.name()).build()).create();
    client.pods().inNamespace(ns.name())
        .resource(GpuPods.named("anywhere").gpu(1, 4000, 20).selector(GROUP, ns.name()).build()).create();
    PodCondition refused =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> scheduled(get(client, ns, "pinned")), c -> c.isPresent() && "False".equals(c.get().getStatus()))
            .orElseThrow();
    double refusedAfter = seconds(probed);
    Pod anywhere = awaitRunning(client, ns, "anywhere");

    assertThat(refused.getReason()).isEqualTo("Unschedulable");
    assertThat(refused.getMessage()).startsWith("0/");
    assertThat(anywhere.getSpec().getNodeName()).isEqualTo(b.name());
    assertThat(anywhere.getMetadata().getAnnotations()).containsEntry(Annotations.VGPU_NODE, b.name());
    Pod pending = get(client, ns, "pinned");
    assertThat(pending.getSpec().getNodeName()).isNull();
    assertThat(pending.getMetadata().getAnnotations()).doesNotContainKey(Annotations.VGPU_NODE);
    Pod stillThere = get(client, ns, "before");
    assertThat(stillThere.getStatus().getPhase()).as("a running pod outlives its node agent").isEqualTo("Running");
    assertThat(stillThere.getMetadata().getAnnotations()).containsEntry(Annotations.VGPU_DEVICES_ALLOCATED, beforeDevices);

    long restarted = System.nanoTime();
    a.startAgent();
    double agentUp = seconds(restarted);
    Pod placed = awaitRunning(client, ns, "pinned");
    double back = seconds(restarted);

    assertThat(placed.getSpec().getNodeName()).isEqualTo(a.name());
    assertThat(placed.getMetadata().getAnnotations()).containsEntry(Annotations.VGPU_NODE, a.name());
    assertThat(allocatable(client, a.name())).isEqualTo(10);
    assertThat(a.allocateErrors()).isEmpty();
    assertThat(b.allocateErrors()).isEmpty();
    System.out.printf(
        "e2e: node agent failure: allocatable 0 %.2f s after the agent stopped; pod refused %.2f s after creation (%s);"
            + " agent back in %.2f s; waiting pod running on the node %.2f s after the restart began%n",
        left, refusedAfter, refused.getMessage(), agentUp, back);
    await().atMost(PATIENCE).until(() -> !a.locked());
  }
}
