package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * The scheduler process killed with SIGKILL while it binds a batch of pods, then started again.
 * Whatever the kill interrupted (a node lock taken for a pod whose Binding was never posted, pod
 * annotations written for a placement that never happened), the new process must bind every pod
 * exactly once, on devices nobody else holds, and break the stale locks.
 *
 * <p>Besides what the kill leaves by chance, each node gets a stale lock on purpose before the
 * restart: one as the crash window leaves it (lock and allocation annotations of a pod that is
 * still unbound), and, where that is not already the case, one whose holder never existed. The
 * nodes are exactly as large as the batch, so a share accounted twice would leave a pod pending.
 */
@ExtendWith(ControlPlaneExtension.class)
class SchedulerCrashE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(120);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  /** Pods per node: two GPUs of ten slots each, so each node is full. */
  private static final int PER_NODE = 20;
  private static final int MEM = 1500;
  private static final int CORES = 10;
  private static final int BOUND_BEFORE_KILL = 8;

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private static List<Pod> pods(KubernetesClient client, TestNamespace ns) {
    return client.pods().inNamespace(ns.name()).list().getItems();
  }

  private static boolean bound(Pod p) {
    return p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty();
  }

  private static boolean done(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    return bound(p)
        && a != null
        && "success".equals(a.get(Annotations.BIND_PHASE))
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase());
  }

  private static String pinnedNode(Pod p) {
    return p.getSpec().getNodeSelector().get("kubernetes.io/hostname");
  }

  private static void annotate(KubernetesClient client, String node, Map<String, String> annotations) {
    client.nodes().withName(node)
        .patch(PatchContext.of(PatchType.JSON_MERGE), JSON.writeValueAsString(Map.of("metadata", Map.of("annotations", annotations))));
  }

  @Test
  void killedWhileBinding_theRestartedSchedulerBindsEveryPodOnce_andBreaksStaleLocks(
      KubernetesClient client, TestNamespace ns, ControlPlane cp) throws Exception {
    Map<String, GpuNode> byName = new LinkedHashMap<>();
    for (String suffix : List.of("-a", "-b")) {
      GpuNode n = GpuNode.start(client, dir, ns.name() + suffix, 10, List.of(GpuNode.gpu(0, 16000), GpuNode.gpu(1, 16000)));
      nodes.add(n);
      byName.put(n.name(), n);
    }
    Path config = Scheduler.shippedConfig();

    SchedulerProcess first = SchedulerProcess.start(cp, config, "crash-first", false);
    int bound;
    List<Pod> atKill;
    try {
      for (int i = 0; i < PER_NODE; i++) {
        for (GpuNode n : nodes) {
          String name = String.format("p%s-%02d", n.name().substring(n.name().length() - 1), i);
          client.pods().inNamespace(ns.name()).resource(GpuPods.named(name).gpu(1, MEM, CORES).on(n.name()).build()).create();
        }
      }
      await()
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> pods(client, ns).stream().filter(SchedulerCrashE2E::bound).count() >= BOUND_BEFORE_KILL);
      first.kill();
      atKill = pods(client, ns);
      bound = (int) atKill.stream().filter(SchedulerCrashE2E::bound).count();
    } finally {
      first.close();
    }
    assertThat(bound).as("pods bound when the scheduler was killed; some must be left for the restart").isLessThan(atKill.size());

    // Leave a stale lock on every node that the kill did not leave one on.
    Map<String, String> staleLocks = new LinkedHashMap<>();
    String windowPod = null;
    String ghost = "ghost-" + System.nanoTime();
    for (GpuNode n : nodes) {
      String lock = n.annotations().get(Annotations.MUTEX_LOCK);
      if (lock != null) {
        staleLocks.put(n.name(), lock + " (left by the kill)");
        continue;
      }
      Pod unbound =
          windowPod != null
              ? null
              : atKill.stream().filter(p -> !bound(p) && pinnedNode(p).equals(n.name())).findFirst().orElse(null);
      if (unbound != null) {
        // As the crash window leaves it: lock taken and pod annotated for a device, Binding never posted.
        windowPod = unbound.getMetadata().getName();
        String uuid = Invariants.registered(client.nodes().withName(n.name()).get()).keySet().iterator().next();
        String devices = uuid + ",NVIDIA," + MEM + "," + CORES + ":;";
        String now = Long.toString(System.currentTimeMillis() / 1000);
        Map<String, String> podAnnos = new LinkedHashMap<>();
        podAnnos.put(Annotations.VGPU_NODE, n.name());
        podAnnos.put(Annotations.VGPU_TIME, now);
        podAnnos.put(Annotations.VGPU_DEVICES_TO_ALLOCATE, devices);
        podAnnos.put(Annotations.VGPU_DEVICES_ALLOCATED, devices);
        podAnnos.put(Annotations.BIND_PHASE, "allocating");
        podAnnos.put(Annotations.BIND_TIME, now);
        client.pods().inNamespace(ns.name()).withName(windowPod)
            .patch(PatchContext.of(PatchType.JSON_MERGE), JSON.writeValueAsString(Map.of("metadata", Map.of("annotations", podAnnos))));
        String value = NodeLock.of(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS), ns.name(), windowPod).encode();
        annotate(client, n.name(), Map.of(Annotations.MUTEX_LOCK, value));
        staleLocks.put(n.name(), value + " (held by an unbound pod)");
      } else {
        String value = NodeLock.of(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS), ns.name(), ghost).encode();
        annotate(client, n.name(), Map.of(Annotations.MUTEX_LOCK, value));
        staleLocks.put(n.name(), value + " (holder never existed)");
      }
    }

    long restarted = System.nanoTime();
    SchedulerProcess second = SchedulerProcess.start(cp, config, "crash-second", false);
    try {
      double up = (System.nanoTime() - restarted) / 1e9;
      List<Pod> finished =
          await()
              .atMost(PATIENCE)
              .pollInterval(Duration.ofMillis(100))
              .until(() -> pods(client, ns), ps -> ps.size() == atKill.size() && ps.stream().allMatch(SchedulerCrashE2E::done));
      double recovered = (System.nanoTime() - restarted) / 1e9;

      for (Pod p : finished) {
        String id = p.getMetadata().getName();
        assertThat(p.getSpec().getNodeName()).as(id).isEqualTo(pinnedNode(p));
        Map<String, String> a = p.getMetadata().getAnnotations();
        assertThat(a).as(id).containsEntry(Annotations.VGPU_NODE, pinnedNode(p));
        List<List<Invariants.Use>> devices = Invariants.parseDevices(a.get(Annotations.VGPU_DEVICES_ALLOCATED));
        assertThat(devices).as(id).singleElement().satisfies(c -> assertThat(c).singleElement().satisfies(u -> {
          assertThat(u.mem()).isEqualTo(MEM);
          assertThat(u.cores()).isEqualTo(CORES);
        }));
        // The node agent served this pod, and with the devices its annotation names.
        ContainerAllocateResponse r = byName.get(pinnedNode(p)).allocation(p.getMetadata().getUid()).get("cuda");
        assertThat(r).as("Allocate of %s", id).isNotNull();
        assertThat(r.getEnvsMap())
            .as(id)
            .containsEntry("NVIDIA_VISIBLE_DEVICES", devices.get(0).get(0).uuid())
            .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", MEM + "m");
      }
      for (GpuNode n : nodes) {
        assertThat(n.allocateErrors()).as("Allocate errors on %s", n.name()).isEmpty();
        await().atMost(PATIENCE).until(() -> !n.locked());
      }
      if (staleLocks.values().stream().anyMatch(v -> v.endsWith("(holder never existed)"))) {
        List<Event> takeovers =
            await()
                .atMost(PATIENCE)
                .until(
                    () -> client.v1().events().inNamespace(ns.name()).list().getItems().stream()
                        .filter(e -> "NodeLockTakenOver".equals(e.getReason()))
                        .toList(),
                    l -> l.stream().anyMatch(e -> e.getMessage().contains(ghost)));
        assertThat(takeovers).anySatisfy(e -> assertThat(e.getMessage()).contains(ghost).contains("holder_gone"));
      }
      Map<String, Long> perNode =
          finished.stream().collect(Collectors.groupingBy(p -> p.getSpec().getNodeName(), Collectors.counting()));
      System.out.printf(
          "e2e: scheduler crash: killed with %d of %d pods bound; stale locks %s; restarted scheduler up in %.1f s;"
              + " every pod bound and running %.1f s after the restart (per node %s)%n",
          bound, atKill.size(), staleLocks, up, recovered, perNode);
    } finally {
      second.close();
    }
  }
}
