package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import io.hami.nodeagent.nvml.GpuInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Priority and preemption as kube-scheduler's DefaultPreemption does them, made GPU-aware: on a
 * node whose GPUs are full of priority-0 shares, a higher-priority pod evicts just the shares of
 * one GPU that make room for it (DisruptionTarget condition, then a graceful delete, and a {@code
 * Preempted} Event on each victim), is nominated to the node and binds there, on that GPU. A pod
 * whose PriorityClass says {@code preemptionPolicy: Never}, and one of equal priority, evict
 * nothing.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class PreemptionE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(120);
  private static final Duration FILL_PATIENCE = Duration.ofMinutes(5);

  /** 80 GiB GPUs, each filled by eight 10 GiB shares of 10% of the cores. */
  private static final int GPU_MIB = 80 * 1024;

  private static final int SHARE_MIB = 10 * 1024;
  private static final int SHARE_CORES = 10;
  private static final int SHARES_PER_GPU = GPU_MIB / SHARE_MIB;

  /** The preemptor: 40 GiB on one GPU, the room of four shares. */
  private static final int URGENT_MIB = 40 * 1024;

  private static final int URGENT_CORES = 20;
  private static final String LOW = "low-";

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();
  private final List<String> priorityClasses = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    try {
      Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
    } finally {
      priorityClasses.forEach(n -> client.scheduling().v1().priorityClasses().withName(n).delete());
      priorityClasses.clear();
    }
  }

  private GpuNode node(KubernetesClient client, String name, int gpus) throws Exception {
    List<GpuInfo> devices =
        IntStream.range(0, gpus).mapToObj(i -> GpuNode.gpu(i, GPU_MIB)).toList();
    GpuNode n = GpuNode.start(client, dir, name, 10, devices);
    nodes.add(n);
    return n;
  }

  /** A cluster-wide PriorityClass named after the namespace, removed after the test. */
  private String priorityClass(
      KubernetesClient client, TestNamespace ns, String stem, int value, String policy) {
    String name = "e2e-" + stem + "-" + ns.name();
    client
        .scheduling()
        .v1()
        .priorityClasses()
        .resource(
            new PriorityClassBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withValue(value)
                .withPreemptionPolicy(policy)
                .withDescription("e2e " + stem)
                .build())
        .create();
    priorityClasses.add(name);
    return name;
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  private static boolean allocated(@Nullable Pod p) {
    return p != null
        && p.getMetadata().getAnnotations() != null
        && "success".equals(p.getMetadata().getAnnotations().get(Annotations.BIND_PHASE))
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase());
  }

  private static Pod awaitAllocated(KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> get(client, ns, name), PreemptionE2E::allocated);
  }

  private static Optional<PodCondition> condition(Pod pod, String type) {
    return pod.getStatus() == null || pod.getStatus().getConditions() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream()
            .filter(c -> type.equals(c.getType()))
            .findFirst();
  }

  private static PodCondition awaitUnschedulable(
      KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> condition(get(client, ns, name), "PodScheduled"),
            c -> c.isPresent() && "False".equals(c.get().getStatus()))
        .orElseThrow();
  }

  /** The UUID of the one GPU the pod's single container was given. */
  private static String gpuOf(Pod pod) {
    List<List<Invariants.Use>> devices =
        Invariants.parseDevices(
            pod.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED));
    assertThat(devices).as("devices of %s", pod.getMetadata().getName()).hasSize(1);
    assertThat(devices.get(0)).as("devices of %s", pod.getMetadata().getName()).hasSize(1);
    return devices.get(0).get(0).uuid();
  }

  private static List<Pod> lowPods(KubernetesClient client, TestNamespace ns) {
    return client.pods().inNamespace(ns.name()).list().getItems().stream()
        .filter(p -> p.getMetadata().getName().startsWith(LOW))
        .toList();
  }

  /**
   * Fills every GPU of {@code node} with priority-0 shares and returns the GPU of each share, by
   * pod name, once all run.
   */
  private static Map<String, String> fill(
      KubernetesClient client, TestNamespace ns, GpuNode node, int gpus) {
    int count = gpus * SHARES_PER_GPU;
    for (int i = 0; i < count; i++) {
      client
          .pods()
          .inNamespace(ns.name())
          .resource(
              GpuPods.named(String.format("%s%02d", LOW, i))
                  .gpu(1, SHARE_MIB, SHARE_CORES)
                  .on(node.name())
                  .build())
          .create();
    }
    List<Pod> running =
        await()
            .atMost(FILL_PATIENCE)
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> lowPods(client, ns),
                pods -> pods.size() == count && pods.stream().allMatch(PreemptionE2E::allocated));
    Map<String, String> gpuByPod =
        running.stream().collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> gpuOf(p)));
    // Memory admits at most SHARES_PER_GPU shares on a GPU: every GPU is full.
    assertThat(
            gpuByPod.values().stream()
                .collect(Collectors.groupingBy(u -> u, Collectors.counting())))
        .as("shares per GPU")
        .hasSize(gpus)
        .allSatisfy((gpu, n) -> assertThat(n).isEqualTo((long) SHARES_PER_GPU));
    return gpuByPod;
  }

  /** What a watch on the namespace's pods saw: preemption leaves no trace on deleted pods. */
  private static final class Seen implements Watcher<Pod> {
    final Map<String, PodCondition> disrupted = new ConcurrentHashMap<>();

    /** The longest deletion grace period each pod was seen with: 0 for a forced delete. */
    final Map<String, Long> terminating = new ConcurrentHashMap<>();

    final Set<String> deleted = ConcurrentHashMap.newKeySet();
    final Map<String, String> nominated = new ConcurrentHashMap<>();

    @Override
    public void eventReceived(Action action, Pod pod) {
      String name = pod.getMetadata().getName();
      condition(pod, "DisruptionTarget")
          .filter(c -> "True".equals(c.getStatus()))
          .ifPresent(c -> disrupted.put(name, c));
      Long grace = pod.getMetadata().getDeletionGracePeriodSeconds();
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        terminating.merge(name, grace == null ? 0L : grace, Math::max);
      }
      if (action == Action.DELETED) {
        deleted.add(name);
      }
      String nominatedNode =
          pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
      if (nominatedNode != null && !nominatedNode.isEmpty()) {
        nominated.put(name, nominatedNode);
      }
    }

    @Override
    public void onClose(WatcherException cause) {
      // The test fails on what was not seen; the cause is in the log.
      System.out.println("e2e: pod watch closed: " + cause);
    }
  }

  private static Set<String> preemptedEvents(KubernetesClient client, TestNamespace ns) {
    return client.v1().events().inNamespace(ns.name()).list().getItems().stream()
        .filter(e -> "Preempted".equals(e.getReason()))
        .map(Event::getInvolvedObject)
        .map(o -> o.getName())
        .collect(Collectors.toSet());
  }

  @Test
  void higherPriorityPod_evictsTheSharesOfOneGpu_andBindsOnIt(
      KubernetesClient client, TestNamespace ns) throws Exception {
    int gpus = 8;
    GpuNode node = node(client, ns.name() + "-full", gpus);
    Map<String, String> gpuByPod = fill(client, ns, node, gpus);
    String high = priorityClass(client, ns, "high", 1000, "PreemptLowerPriority");

    Seen seen = new Seen();
    long start;
    Pod urgent;
    try (Watch watch = client.pods().inNamespace(ns.name()).watch(seen)) {
      start = System.nanoTime();
      client
          .pods()
          .inNamespace(ns.name())
          .resource(
              GpuPods.named("urgent")
                  .gpu(1, URGENT_MIB, URGENT_CORES)
                  .priorityClass(high)
                  .on(node.name())
                  .build())
          .create();
      urgent = awaitAllocated(client, ns, "urgent");
      System.out.printf(
          "e2e: preemptor running %d ms after it was created; victims %s%n",
          Duration.ofNanos(System.nanoTime() - start).toMillis(), seen.disrupted.keySet());
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(seen.deleted).containsAll(seen.disrupted.keySet()));
    }

    assertThat(urgent.getSpec().getPriority()).isEqualTo(1000);
    assertThat(urgent.getSpec().getNodeName()).isEqualTo(node.name());
    assertThat(seen.nominated)
        .as("status.nominatedNodeName written on the preemptor")
        .containsEntry("urgent", node.name());

    Set<String> victims = Set.copyOf(seen.disrupted.keySet());
    assertThat(victims)
        .as("shares evicted: the room of the preemptor on one GPU, no more")
        .hasSize(URGENT_MIB / SHARE_MIB)
        .allSatisfy(v -> assertThat(v).startsWith(LOW));
    assertThat(seen.disrupted.values())
        .allSatisfy(c -> assertThat(c.getReason()).isEqualTo("PreemptionByScheduler"));
    assertThat(Set.copyOf(seen.deleted)).as("pods deleted").isEqualTo(victims);
    assertThat(victims)
        .as("victims deleted gracefully, with their own grace period")
        .allSatisfy(
            v -> assertThat(seen.terminating).containsEntry(v, GpuPods.TERMINATION_GRACE_SECONDS));
    Set<String> victimGpus = new HashSet<>();
    victims.forEach(v -> victimGpus.add(gpuByPod.get(v)));
    assertThat(victimGpus).as("GPUs of the victims").containsExactly(gpuOf(urgent));

    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(preemptedEvents(client, ns))
                    .as("pods with a Preempted Event")
                    .isEqualTo(victims));

    List<Pod> stayed = lowPods(client, ns);
    assertThat(stayed)
        .as("shares that stayed")
        .hasSize(gpuByPod.size() - victims.size())
        .allSatisfy(
            p -> {
              assertThat(p.getMetadata().getDeletionTimestamp()).isNull();
              assertThat(allocated(p)).as("%s running", p.getMetadata().getName()).isTrue();
            });
  }

  @Test
  void preemptionPolicyNever_andEqualPriority_evictNothing(
      KubernetesClient client, TestNamespace ns) throws Exception {
    int gpus = 2;
    GpuNode node = node(client, ns.name() + "-never", gpus);
    Map<String, String> gpuByPod = fill(client, ns, node, gpus);
    String never = priorityClass(client, ns, "never", 1000, "Never");

    Seen seen = new Seen();
    try (Watch watch = client.pods().inNamespace(ns.name()).watch(seen)) {
      client
          .pods()
          .inNamespace(ns.name())
          .resource(
              GpuPods.named("never")
                  .gpu(1, URGENT_MIB, URGENT_CORES)
                  .priorityClass(never)
                  .on(node.name())
                  .build())
          .create();
      client
          .pods()
          .inNamespace(ns.name())
          .resource(GpuPods.named("equal").gpu(1, URGENT_MIB, URGENT_CORES).on(node.name()).build())
          .create();
      PodCondition neverWaits = awaitUnschedulable(client, ns, "never");
      PodCondition equalWaits = awaitUnschedulable(client, ns, "equal");
      System.out.println("e2e: preemptionPolicy Never waits: " + neverWaits.getMessage());
      System.out.println("e2e: equal priority waits: " + equalWaits.getMessage());

      // Preemption runs in the cycle that reports the pod unschedulable, its API calls may trail.
      await()
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(8))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  seen.disrupted.isEmpty()
                      && seen.terminating.isEmpty()
                      && seen.deleted.isEmpty()
                      && seen.nominated.isEmpty());
    }

    Pod neverPod = get(client, ns, "never");
    assertThat(neverPod.getSpec().getPriority()).isEqualTo(1000);
    assertThat(neverPod.getSpec().getPreemptionPolicy()).isEqualTo("Never");
    assertThat(get(client, ns, "equal").getSpec().getPriority()).isZero();
    for (String name : List.of("never", "equal")) {
      Pod p = get(client, ns, name);
      assertThat(p.getSpec().getNodeName()).as("%s node", name).isNull();
      assertThat(p.getStatus().getNominatedNodeName()).as("%s nominated", name).isNullOrEmpty();
    }
    assertThat(preemptedEvents(client, ns)).as("pods with a Preempted Event").isEmpty();
    assertThat(lowPods(client, ns))
        .hasSize(gpuByPod.size())
        .allSatisfy(p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNull());
  }
}
