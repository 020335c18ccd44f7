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
 * <p>Once what was bound has been allocated, any lock left must belong to a pod that is still
 * unbound. Where the kill left none, the test leaves one as the crash window does (lock and
 * allocation annotations of a pod that is still unbound), and a third node, whose pods only the
 * restarted scheduler sees, gets a lock whose holder never existed. The nodes are exactly as large
 * as their pods, so a share accounted twice would leave a pod pending.
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

  private static void annotate(
      KubernetesClient client, String node, Map<String, String> annotations) {
    client
        .nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            JSON.writeValueAsString(Map.of("metadata", Map.of("annotations", annotations))));
  }

  private static void create(KubernetesClient client, TestNamespace ns, GpuNode n, int i) {
    String name = String.format("p%s-%02d", n.name().substring(n.name().length() - 1), i);
    client
        .pods()
        .inNamespace(ns.name())
        .resource(GpuPods.named(name).gpu(1, MEM, CORES).on(n.name()).build())
        .create();
  }

  @Test
  void killedWhileBinding_theRestartedSchedulerBindsEveryPodOnce_andBreaksStaleLocks(
      KubernetesClient client, TestNamespace ns, ControlPlane cp) throws Exception {
    Map<String, GpuNode> byName = new LinkedHashMap<>();
    for (String suffix : List.of("-a", "-b")) {
      GpuNode n =
          GpuNode.start(
              client,
              dir,
              ns.name() + suffix,
              10,
              List.of(GpuNode.gpu(0, 16000), GpuNode.gpu(1, 16000)));
      nodes.add(n);
      byName.put(n.name(), n);
    }
    // Only the restarted scheduler sees this node's pods; its lock names a pod that never existed.
    GpuNode ghostNode =
        GpuNode.start(client, dir, ns.name() + "-c", 10, List.of(GpuNode.gpu(0, 16000)));
    nodes.add(ghostNode);
    byName.put(ghostNode.name(), ghostNode);
    Path config = Scheduler.shippedConfig();

    SchedulerProcess first = SchedulerProcess.start(cp, config, "crash-first", false);
    int bound;
    int batch = 2 * PER_NODE;
    try {
      for (int i = 0; i < PER_NODE; i++) {
        for (GpuNode n : List.of(nodes.get(0), nodes.get(1))) {
          create(client, ns, n, i);
        }
      }
      await()
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(20))
          .until(
              () ->
                  pods(client, ns).stream().filter(SchedulerCrashE2E::bound).count()
                      >= BOUND_BEFORE_KILL);
      first.kill();
    } finally {
      first.close();
    }
    // What was bound finishes without a scheduler: the agents allocate and release their locks.
    List<Pod> atKill =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> pods(client, ns),
                ps ->
                    ps.stream().filter(SchedulerCrashE2E::bound).allMatch(SchedulerCrashE2E::done));
    bound = (int) atKill.stream().filter(SchedulerCrashE2E::bound).count();
    assertThat(bound)
        .as("pods bound when the scheduler was killed; some must be left for the restart")
        .isLessThan(batch);

    // A lock left now was taken for a pod whose Binding the kill prevented. Where the kill left
    // none, leave one as the crash window does: lock taken and pod annotated, Binding never posted.
    Map<String, String> staleLocks = new LinkedHashMap<>();
    for (GpuNode n : List.of(nodes.get(0), nodes.get(1))) {
      String lock = n.annotations().get(Annotations.MUTEX_LOCK);
      if (lock != null) {
        NodeLock held = NodeLock.decode(lock).toOptional().orElseThrow();
        Pod holder =
            atKill.stream()
                .filter(p -> p.getMetadata().getName().equals(held.name()))
                .findFirst()
                .orElseThrow();
        assertThat(bound(holder))
            .as("holder %s of the lock left on %s is bound", held.name(), n.name())
            .isFalse();
        staleLocks.put(n.name(), lock + " (left by the kill)");
        continue;
      }
      Pod unbound =
          atKill.stream()
              .filter(p -> !bound(p) && pinnedNode(p).equals(n.name()))
              .findFirst()
              .orElse(null);
      if (unbound == null) {
        continue;
      }
      String windowPod = unbound.getMetadata().getName();
      String uuid =
          Invariants.registered(client.nodes().withName(n.name()).get()).keySet().iterator().next();
      String devices = uuid + ",NVIDIA," + MEM + "," + CORES + ":;";
      String now = Long.toString(System.currentTimeMillis() / 1000);
      Map<String, String> podAnnos = new LinkedHashMap<>();
      podAnnos.put(Annotations.VGPU_NODE, n.name());
      podAnnos.put(Annotations.VGPU_TIME, now);
      podAnnos.put(Annotations.VGPU_DEVICES_TO_ALLOCATE, devices);
      podAnnos.put(Annotations.VGPU_DEVICES_ALLOCATED, devices);
      podAnnos.put(Annotations.BIND_PHASE, "allocating");
      podAnnos.put(Annotations.BIND_TIME, now);
      client
          .pods()
          .inNamespace(ns.name())
          .withName(windowPod)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              JSON.writeValueAsString(Map.of("metadata", Map.of("annotations", podAnnos))));
      String value =
          NodeLock.of(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS), ns.name(), windowPod)
              .encode();
      annotate(client, n.name(), Map.of(Annotations.MUTEX_LOCK, value));
      staleLocks.put(n.name(), value + " (held by an unbound pod)");
    }
    String ghost = "ghost-" + System.nanoTime();
    String ghostLock =
        NodeLock.of(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS), ns.name(), ghost)
            .encode();
    annotate(client, ghostNode.name(), Map.of(Annotations.MUTEX_LOCK, ghostLock));
    staleLocks.put(ghostNode.name(), ghostLock + " (holder never existed)");
    for (int i = 0; i < 10; i++) {
      create(client, ns, ghostNode, i);
    }
    int total = batch + 10;

    long restarted = System.nanoTime();
    SchedulerProcess second = SchedulerProcess.start(cp, config, "crash-second", false);
    try {
      double up = (System.nanoTime() - restarted) / 1e9;
      List<Pod> finished =
          await()
              .atMost(PATIENCE)
              .pollInterval(Duration.ofMillis(100))
              .until(
                  () -> pods(client, ns),
                  ps -> ps.size() == total && ps.stream().allMatch(SchedulerCrashE2E::done));
      double recovered = (System.nanoTime() - restarted) / 1e9;

      for (Pod p : finished) {
        String id = p.getMetadata().getName();
        assertThat(p.getSpec().getNodeName()).as(id).isEqualTo(pinnedNode(p));
        Map<String, String> a = p.getMetadata().getAnnotations();
        assertThat(a).as(id).containsEntry(Annotations.VGPU_NODE, pinnedNode(p));
        List<List<Invariants.Use>> devices =
            Invariants.parseDevices(a.get(Annotations.VGPU_DEVICES_ALLOCATED));
        assertThat(devices)
            .as(id)
            .singleElement()
            .satisfies(
                c ->
                    assertThat(c)
                        .singleElement()
                        .satisfies(
                            u -> {
                              assertThat(u.mem()).isEqualTo(MEM);
                              assertThat(u.cores()).isEqualTo(CORES);
                            }));
        // The node agent served this pod, and with the devices its annotation names.
        ContainerAllocateResponse r =
            byName.get(pinnedNode(p)).allocation(p.getMetadata().getUid()).get("cuda");
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
      List<Event> takeovers =
          await()
              .atMost(PATIENCE)
              .until(
                  () ->
                      client.v1().events().inNamespace(ns.name()).list().getItems().stream()
                          .filter(e -> "NodeLockTakenOver".equals(e.getReason()))
                          .toList(),
                  l -> l.stream().anyMatch(e -> e.getMessage().contains(ghost)));
      assertThat(takeovers)
          .anySatisfy(e -> assertThat(e.getMessage()).contains(ghost).contains("holder_gone"));
      Map<String, Long> perNode =
          finished.stream()
              .collect(
                  Collectors.groupingBy(p -> p.getSpec().getNodeName(), Collectors.counting()));
      System.out.printf(
          "e2e: scheduler crash: killed with %d of %d pods bound; stale locks %s; restarted scheduler up in %.1f s;"
              + " every pod bound and running %.1f s after the restart (per node %s)%n",
          bound, batch, staleLocks, up, recovered, perNode);
    } finally {
      second.close();
    }
  }
}
