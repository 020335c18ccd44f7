package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.cmd.cluster.PodLifecycle;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node agent that dies. Its device plugin leaves kubelet, which marks the devices Unhealthy and
 * publishes allocatable {@code nvidia.com/gpu: 0}; the scheduler then treats the node as unhealthy
 * (HAMi v2.8+ NVIDIA semantics, protocol §3.3: health follows allocatable, the handshake's 60 s
 * {@code Requesting_} expiry only matters while allocatable stays 0, so there is no timeout to wait
 * for). New pods go elsewhere or wait; pods already running are untouched; a pod bound just as the
 * agent died is rejected by kubelet, and the node lock it holds is broken when the agent comes back
 * and the waiting pod is placed there.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class NodeAgentFailureE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String GROUP = "e2e.hami.io/agent-failure";

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private GpuNode node(KubernetesClient client, String name, String group) throws Exception {
    GpuNode n =
        GpuNode.start(
            client,
            dir,
            FakeNode.named(name).label(GROUP, group),
            10,
            List.of(GpuNode.gpu(0, 16000)));
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
        : pod.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()))
            .findFirst();
  }

  private static long allocatable(KubernetesClient client, String node) {
    Node n = client.nodes().withName(node).get();
    Quantity q =
        n.getStatus().getAllocatable() == null
            ? null
            : n.getStatus().getAllocatable().get(GpuNode.RESOURCE);
    return q == null ? -1 : q.getNumericalAmount().longValue();
  }

  private static double seconds(long fromNanos) {
    return (System.nanoTime() - fromNanos) / 1e9;
  }

  /**
   * Creates a pod for no scheduler and does what a scheduler does in Bind: annotates it for the
   * first device of {@code node}, takes the node lock for it and posts the Binding.
   */
  private static Pod bindBehindTheSchedulersBack(
      KubernetesClient client, TestNamespace ns, GpuNode node, String name) throws Exception {
    Pod pod =
        new PodBuilder(GpuPods.named(name).gpu(1, 4000, 20).on(node.name()).build())
            .editSpec()
            .withSchedulerName("e2e-nobody")
            .endSpec()
            .build();
    String uuid =
        Invariants.registered(client.nodes().withName(node.name()).get())
            .keySet()
            .iterator()
            .next();
    String devices = uuid + ",NVIDIA,4000,20:;";
    String now = Long.toString(System.currentTimeMillis() / 1000);
    Map<String, String> annos = new LinkedHashMap<>();
    annos.put(Annotations.VGPU_NODE, node.name());
    annos.put(Annotations.VGPU_TIME, now);
    annos.put(Annotations.VGPU_DEVICES_TO_ALLOCATE, devices);
    annos.put(Annotations.VGPU_DEVICES_ALLOCATED, devices);
    annos.put(Annotations.BIND_PHASE, "allocating");
    annos.put(Annotations.BIND_TIME, now);
    pod.getMetadata().setAnnotations(annos);
    Pod created = client.pods().inNamespace(ns.name()).resource(pod).create();
    String lock =
        NodeLock.of(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS), ns.name(), name).encode();
    client
        .nodes()
        .withName(node.name())
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            new NodeBuilder()
                .withNewMetadata()
                .addToAnnotations(Annotations.MUTEX_LOCK, lock)
                .endMetadata()
                .build());
    PodLifecycle.bind(client, created, node.name());
    return created;
  }

  @Test
  void deadAgent_takesItsNodeOutOfScheduling_andItsReturnBringsItBack(
      KubernetesClient client, TestNamespace ns) throws Exception {
    GpuNode a = node(client, ns.name() + "-a", ns.name());
    GpuNode b = node(client, ns.name() + "-b", ns.name());

    client
        .pods()
        .inNamespace(ns.name())
        .resource(GpuPods.named("before").gpu(1, 4000, 20).on(a.name()).build())
        .create();
    Pod before = awaitRunning(client, ns, "before");
    String beforeDevices =
        before.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED);
    await().atMost(PATIENCE).until(() -> !a.locked());

    long stopped = System.nanoTime();
    a.stopAgent();
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> allocatable(client, a.name()) == 0);
    double left = seconds(stopped);
    assertThat(a.annotations())
        .as("the register annotation of a dead agent stays")
        .containsKey(Annotations.NODE_NVIDIA_REGISTER);

    // A pod that can only go to the node waits, with the reason; one that can go anywhere goes to
    // the other.
    long probed = System.nanoTime();
    client
        .pods()
        .inNamespace(ns.name())
        .resource(GpuPods.named("pinned").gpu(1, 4000, 20).on(a.name()).build())
        .create();
    client
        .pods()
        .inNamespace(ns.name())
        .resource(GpuPods.named("anywhere").gpu(1, 4000, 20).selector(GROUP, ns.name()).build())
        .create();
    PodCondition refused =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> scheduled(get(client, ns, "pinned")),
                c -> c.isPresent() && "False".equals(c.get().getStatus()))
            .orElseThrow();
    double refusedAfter = seconds(probed);
    Pod anywhere = awaitRunning(client, ns, "anywhere");

    assertThat(refused.getReason()).isEqualTo("Unschedulable");
    assertThat(refused.getMessage()).startsWith("0/");
    assertThat(anywhere.getSpec().getNodeName()).isEqualTo(b.name());
    assertThat(anywhere.getMetadata().getAnnotations())
        .containsEntry(Annotations.VGPU_NODE, b.name());
    Pod pending = get(client, ns, "pinned");
    assertThat(pending.getSpec().getNodeName()).isNull();
    assertThat(pending.getMetadata().getAnnotations()).doesNotContainKey(Annotations.VGPU_NODE);
    Pod stillThere = get(client, ns, "before");
    assertThat(stillThere.getStatus().getPhase())
        .as("a running pod outlives its node agent")
        .isEqualTo("Running");
    assertThat(stillThere.getMetadata().getAnnotations())
        .containsEntry(Annotations.VGPU_DEVICES_ALLOCATED, beforeDevices);

    // A pod bound to the node just as the agent died, its lock taken: kubelet cannot allocate it
    // and
    // rejects it, and its lock must not keep the node from the others once the agent is back.
    Pod orphan = bindBehindTheSchedulersBack(client, ns, a, "orphan");
    Pod rejected =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> get(client, ns, "orphan"), p -> "Failed".equals(p.getStatus().getPhase()));
    assertThat(rejected.getStatus().getReason()).isEqualTo(PodLifecycle.UNEXPECTED_ADMISSION_ERROR);
    assertThat(a.allocateErrors()).containsOnlyKeys(orphan.getMetadata().getUid());
    assertThat(a.annotations().get(Annotations.MUTEX_LOCK)).contains(",orphan");

    long restarted = System.nanoTime();
    a.startAgent();
    double agentUp = seconds(restarted);
    Pod placed = awaitRunning(client, ns, "pinned");
    double back = seconds(restarted);

    assertThat(placed.getSpec().getNodeName()).isEqualTo(a.name());
    assertThat(placed.getMetadata().getAnnotations())
        .containsEntry(Annotations.VGPU_NODE, a.name());
    assertThat(allocatable(client, a.name())).isEqualTo(10);
    assertThat(a.allocateErrors()).containsOnlyKeys(orphan.getMetadata().getUid());
    assertThat(b.allocateErrors()).isEmpty();
    List<Event> takeovers =
        await()
            .atMost(PATIENCE)
            .until(
                () ->
                    client.v1().events().inNamespace(ns.name()).list().getItems().stream()
                        .filter(e -> "NodeLockTakenOver".equals(e.getReason()))
                        .toList(),
                l -> !l.isEmpty());
    assertThat(takeovers)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getInvolvedObject().getName()).isEqualTo("pinned");
              assertThat(e.getMessage()).contains("/orphan").contains("holder_terminal");
            });
    System.out.printf(
        "e2e: node agent failure: allocatable 0 %.2f s after the agent stopped; pod refused %.2f s after creation (%s);"
            + " agent back in %.2f s; waiting pod running on the node %.2f s after the restart began%n",
        left, refusedAfter, refused.getMessage(), agentUp, back);
    await().atMost(PATIENCE).until(() -> !a.locked());
  }
}
