package io.hami.e2e.differential;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.e2e.scenarios.Scheduler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * kube-scheduler v1.36 and the hami-scheduler (shipped profile, GPU plugins on) place the same
 * generated pods on identical generated clusters. Each case is built twice from its seed and index,
 * once per scheduler, under its own names, label values and topology values, so both copies run at
 * once and never see each other or other cases; every pending pod selects its copy's nodes by
 * {@link CaseGenerator#CASE_LABEL}. The schedulers must agree on schedulable versus unschedulable,
 * and every placement must pass {@link HardConstraints}.
 *
 * <p>{@code -Ddiff.cases=N} (default 300), {@code -Ddiff.seed=S}, {@code -Ddiff.first=I} (first
 * case index) and {@code -Ddiff.parallelism=P} (cases at once, default 12). Each disagreement or
 * violation is printed with its seed, index and objects, and saved under {@code
 * target/differential/}.
 */
@ExtendWith(ControlPlaneExtension.class)
class ConstraintsDifferentialE2E {
  private static final String KUBE = "diff-kube-scheduler";
  private static final String HAMI = "hami-scheduler";
  private static final long DEFAULT_SEED = 20261203L;
  private static final long SETTLE_MILLIS = 700;
  private static final long UNSCHEDULABLE_STABLE_MILLIS = 2000;
  private static final long DECISION_TIMEOUT_MILLIS = 60_000;
  private static final int PRINTED_IN_FULL = 15;

  /** What one scheduler did with one copy of a case. */
  record Decision(
      String scheduler,
      boolean decided,
      boolean scheduled,
      String node,
      String message,
      List<String> violations) {
    String describe() {
      if (!decided) {
        return scheduler + ": no decision within " + DECISION_TIMEOUT_MILLIS / 1000 + " s";
      }
      return scheduler
          + (scheduled ? ": scheduled on " + node : ": unschedulable (" + message + ")")
          + (violations.isEmpty() ? "" : " VIOLATES " + violations);
    }
  }

  /** Both decisions of one case. */
  record Outcome(int index, Decision kube, Decision hami, String yaml) {
    boolean agree() {
      return kube.decided && hami.decided && kube.scheduled == hami.scheduled;
    }

    boolean violates() {
      return !kube.violations.isEmpty() || !hami.violations.isEmpty();
    }
  }

  @Test
  void kubeSchedulerAndHamiScheduler_agreeOnEveryGeneratedCase(ControlPlane cp) throws Exception {
    long seed = Long.getLong("diff.seed", DEFAULT_SEED);
    int cases = Integer.getInteger("diff.cases", 300);
    int first = Integer.getInteger("diff.first", 0);
    int parallelism = Integer.getInteger("diff.parallelism", 12);
    String run = Long.toString(System.currentTimeMillis() / 1000 % 46656, 36);
    Path out = ControlPlaneExtension.moduleDir().resolve("target/differential");
    Files.createDirectories(out);

    long started = System.nanoTime();
    List<Outcome> outcomes = new ArrayList<>();
    ExecutorService casePool = Executors.newFixedThreadPool(parallelism);
    ExecutorService copyPool = Executors.newFixedThreadPool(2 * parallelism);
    // Requests of one copy that do not depend on each other go out at once.
    ExecutorService requestPool = Executors.newFixedThreadPool(8 * parallelism);
    try (KubernetesClient client = cp.newAdminClient();
        KubernetesClient hamiClient = cp.newAdminClient();
        KubeSchedulerProcess kube = KubeSchedulerProcess.start(cp, KUBE);
        Scheduler hami = Scheduler.start(hamiClient)) {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = first; i < first + cases; i++) {
        int index = i;
        futures.add(
            casePool.submit(
                () ->
                    runCase(client, copyPool, requestPool, seed, index, "d" + run + "-" + index)));
      }
      for (Future<Outcome> f : futures) {
        outcomes.add(f.get(10, TimeUnit.MINUTES));
      }
      assertThat(kube.isAlive()).as("kube-scheduler still running; log:\n%s", kube.log()).isTrue();
    } finally {
      casePool.shutdownNow();
      copyPool.shutdownNow();
      requestPool.shutdownNow();
    }

    int both = 0;
    int neither = 0;
    List<Outcome> bad = new ArrayList<>();
    for (Outcome o : outcomes) {
      if (o.agree() && !o.violates()) {
        if (o.kube.scheduled) {
          both++;
        } else {
          neither++;
        }
      } else {
        bad.add(o);
      }
    }
    int printed = 0;
    for (Outcome o : bad) {
      String text =
          "# seed "
              + seed
              + ", case "
              + o.index
              + " (rerun: -Ddiff.seed="
              + seed
              + " -Ddiff.first="
              + o.index
              + " -Ddiff.cases=1)\n# "
              + o.kube.describe()
              + "\n# "
              + o.hami.describe()
              + "\n"
              + o.yaml;
      Files.writeString(
          out.resolve("case-" + seed + "-" + o.index + ".yaml"), text, StandardCharsets.UTF_8);
      System.out.println(
          "differential: "
              + (o.agree() ? "VIOLATION" : "DISAGREEMENT")
              + " seed "
              + seed
              + " case "
              + o.index
              + ": "
              + o.kube.describe()
              + " | "
              + o.hami.describe());
      if (printed++ < PRINTED_IN_FULL) {
        System.out.println(text);
      }
    }
    long disagreements = bad.stream().filter(o -> !o.agree()).count();
    long violations = bad.stream().filter(Outcome::violates).count();
    System.out.printf(
        "differential: seed %d, cases %d..%d: %d agree (%d scheduled by both, %d unschedulable"
            + " for both), %d disagreements, %d with checker violations, in %d s%n",
        seed,
        first,
        first + cases - 1,
        both + neither,
        both,
        neither,
        disagreements,
        violations,
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    assertThat(bad)
        .as(
            "cases where the schedulers disagree or a placement breaks a hard constraint"
                + " (objects under %s)",
            out)
        .extracting(o -> o.index + ": " + o.kube.describe() + " | " + o.hami.describe())
        .isEmpty();
  }

  private static Outcome runCase(
      KubernetesClient client,
      ExecutorService pool,
      ExecutorService requests,
      long seed,
      int index,
      String prefix)
      throws Exception {
    CompletableFuture<Decision> kube =
        CompletableFuture.supplyAsync(
            () -> runCopy(client, requests, seed, index, prefix + "k", KUBE), pool);
    CompletableFuture<Decision> hami =
        CompletableFuture.supplyAsync(
            () -> runCopy(client, requests, seed, index, prefix + "h", HAMI), pool);
    CaseGenerator.Case c = CaseGenerator.generate(seed, index, prefix + "k");
    return new Outcome(index, kube.get(), hami.get(), yaml(client, c));
  }

  private static String yaml(KubernetesClient client, CaseGenerator.Case c) {
    List<HasMetadata> all = new ArrayList<>();
    all.addAll(c.namespaces());
    all.addAll(c.storageClasses());
    all.addAll(c.nodes());
    all.addAll(c.volumes());
    all.addAll(c.claims());
    all.addAll(c.existingPods());
    all.add(c.pending());
    StringBuilder b = new StringBuilder();
    for (HasMetadata o : all) {
      b.append(client.getKubernetesSerialization().asYaml(o));
      if (b.charAt(b.length() - 1) != '\n') {
        b.append('\n');
      }
    }
    return b.toString();
  }

  private static Decision runCopy(
      KubernetesClient client,
      ExecutorService requests,
      long seed,
      int index,
      String prefix,
      String schedulerName) {
    CaseGenerator.Case c = CaseGenerator.generate(seed, index, prefix);
    try {
      long t0 = System.nanoTime();
      create(client, requests, c);
      long created = System.nanoTime();
      Thread.sleep(SETTLE_MILLIS);
      Pod pending =
          new PodBuilder(c.pending()).editSpec().withSchedulerName(schedulerName).endSpec().build();
      String ns = pending.getMetadata().getNamespace();
      client.pods().inNamespace(ns).resource(pending).create();
      Decision d = awaitDecision(client, ns, schedulerName, prefix);
      if (Boolean.getBoolean("diff.verbose")) {
        System.out.printf(
            "differential: %s created in %d ms, decided in %d ms%n",
            prefix,
            (created - t0) / 1_000_000,
            (System.nanoTime() - created) / 1_000_000 - SETTLE_MILLIS);
      }
      if (!d.scheduled()) {
        return d;
      }
      Pod placed = client.pods().inNamespace(ns).withName(CaseGenerator.PENDING_NAME).get();
      awaitClaimsBound(client, placed);
      List<String> violations =
          stateOf(client, c).violations(placed, placed.getSpec().getNodeName());
      return new Decision(schedulerName, true, true, d.node(), "", violations);
    } catch (Exception e) {
      return new Decision(schedulerName, false, false, "", "", List.of("harness error: " + e));
    } finally {
      delete(client, c);
    }
  }

  /** Creates the copy: namespaces and classes, then nodes and volumes, then claims and pods. */
  private static void create(
      KubernetesClient client, ExecutorService requests, CaseGenerator.Case c) {
    List<Runnable> first = new ArrayList<>();
    for (var ns : c.namespaces()) {
      first.add(
          () -> {
            client.namespaces().resource(ns).create();
            TestNamespace.ensureDefaultServiceAccount(client, ns.getMetadata().getName());
          });
    }
    for (var sc : c.storageClasses()) {
      first.add(() -> client.storage().v1().storageClasses().resource(sc).create());
    }
    for (Node n : c.nodes()) {
      first.add(() -> createNode(client, n));
    }
    for (var pv : c.volumes()) {
      first.add(() -> client.persistentVolumes().resource(pv).create());
    }
    all(requests, first);
    List<Runnable> then = new ArrayList<>();
    for (var pvc : c.claims()) {
      then.add(() -> client.persistentVolumeClaims().resource(pvc).create());
    }
    for (Pod p : c.existingPods()) {
      then.add(() -> client.pods().resource(p).create());
    }
    all(requests, then);
    awaitVolumesSettled(client, c);
  }

  /**
   * Waits until the PV binder has made every volume Available or Bound: kube-scheduler matches
   * late-bound claims only to Available volumes, and a pod tried before would depend on timing.
   */
  private static void awaitVolumesSettled(KubernetesClient client, CaseGenerator.Case c) {
    if (c.volumes().isEmpty()) {
      return;
    }
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline) {
      List<PersistentVolume> now =
          client
              .persistentVolumes()
              .withLabel(CaseGenerator.CASE_LABEL, c.prefix())
              .list()
              .getItems();
      if (now.size() == c.volumes().size()
          && now.stream()
              .allMatch(
                  pv ->
                      pv.getStatus() != null
                          && List.of("Available", "Bound").contains(pv.getStatus().getPhase()))) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void all(ExecutorService requests, List<Runnable> tasks) {
    CompletableFuture.allOf(
            tasks.stream()
                .map(t -> CompletableFuture.runAsync(t, requests))
                .toArray(CompletableFuture[]::new))
        .join();
  }

  /**
   * Creates the node, publishes its status as kubelet would and drops the not-ready taint that
   * admission adds, in three requests.
   */
  private static void createNode(KubernetesClient client, Node n) {
    Map<String, Quantity> allocatable = n.getStatus().getAllocatable();
    Node created = client.nodes().resource(new NodeBuilder(n).withStatus(null).build()).create();
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    Node ready =
        client
            .nodes()
            .resource(
                new NodeBuilder(created)
                    .withNewStatus()
                    .withCapacity(allocatable)
                    .withAllocatable(allocatable)
                    .withConditions(
                        new NodeConditionBuilder()
                            .withType("Ready")
                            .withStatus("True")
                            .withReason("KubeletReady")
                            .withLastHeartbeatTime(now)
                            .withLastTransitionTime(now)
                            .build())
                    .endStatus()
                    .build())
            .updateStatus();
    client
        .nodes()
        .resource(
            new NodeBuilder(ready)
                .editSpec()
                .withTaints(n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints())
                .endSpec()
                .build())
        .update();
  }

  private static Decision awaitDecision(
      KubernetesClient client, String ns, String scheduler, String prefix)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + DECISION_TIMEOUT_MILLIS;
    long unschedulableSince = -1;
    String message = "";
    while (System.currentTimeMillis() < deadline) {
      Pod p = client.pods().inNamespace(ns).withName(CaseGenerator.PENDING_NAME).get();
      if (p != null && p.getSpec().getNodeName() != null) {
        String node = p.getSpec().getNodeName();
        return new Decision(
            scheduler,
            true,
            true,
            node.startsWith(prefix + "-") ? node.substring(prefix.length() + 1) : node,
            "",
            List.of());
      }
      PodCondition c =
          p == null || p.getStatus() == null || p.getStatus().getConditions() == null
              ? null
              : p.getStatus().getConditions().stream()
                  .filter(x -> "PodScheduled".equals(x.getType()))
                  .findFirst()
                  .orElse(null);
      if (c != null && "False".equals(c.getStatus())) {
        message = c.getMessage() == null ? "" : c.getMessage().replace(prefix + "-", "");
        if (unschedulableSince < 0) {
          unschedulableSince = System.currentTimeMillis();
        } else if (System.currentTimeMillis() - unschedulableSince > UNSCHEDULABLE_STABLE_MILLIS) {
          return new Decision(scheduler, true, false, "", message, List.of());
        }
      }
      Thread.sleep(200);
    }
    return new Decision(scheduler, false, false, "", message, List.of());
  }

  private static void awaitClaimsBound(KubernetesClient client, Pod pod)
      throws InterruptedException {
    List<Volume> vols = pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
    long deadline = System.currentTimeMillis() + 20_000;
    for (Volume v : vols) {
      if (v.getPersistentVolumeClaim() == null) {
        continue;
      }
      while (System.currentTimeMillis() < deadline) {
        PersistentVolumeClaim pvc =
            client
                .persistentVolumeClaims()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(v.getPersistentVolumeClaim().getClaimName())
                .get();
        if (pvc != null
            && pvc.getSpec().getVolumeName() != null
            && pvc.getStatus() != null
            && "Bound".equals(pvc.getStatus().getPhase())) {
          break;
        }
        Thread.sleep(100);
      }
    }
  }

  /** The copy's state as the server has it now, without the pending pod. */
  private static HardConstraints stateOf(KubernetesClient client, CaseGenerator.Case c) {
    List<Node> nodes =
        client.nodes().withLabel(CaseGenerator.CASE_LABEL, c.prefix()).list().getItems();
    List<Pod> pods = new ArrayList<>();
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    List<io.fabric8.kubernetes.api.model.Namespace> namespaces = new ArrayList<>();
    for (var ns : c.namespaces()) {
      String name = ns.getMetadata().getName();
      namespaces.add(client.namespaces().withName(name).get());
      client.pods().inNamespace(name).list().getItems().stream()
          .filter(p -> !p.getMetadata().getName().equals(CaseGenerator.PENDING_NAME))
          .forEach(pods::add);
      claims.addAll(client.persistentVolumeClaims().inNamespace(name).list().getItems());
    }
    Map<String, PersistentVolume> volumes = new HashMap<>();
    for (var pv : c.volumes()) {
      PersistentVolume now = client.persistentVolumes().withName(pv.getMetadata().getName()).get();
      if (now != null) {
        volumes.put(pv.getMetadata().getName(), now);
      }
    }
    return new HardConstraints(nodes, pods, namespaces, claims, List.copyOf(volumes.values()));
  }

  /**
   * Deletes the copy: its pods (grace period 0) and namespaces, and its nodes, volumes and classes
   * by their case label.
   */
  private static void delete(KubernetesClient client, CaseGenerator.Case c) {
    try {
      for (var ns : c.namespaces()) {
        // Pods go first: a pending pod left to the namespace controller stays in the shared
        // scheduler's queue (and later tests' views) for as long as that controller takes.
        client.pods().inNamespace(ns.getMetadata().getName()).withGracePeriod(0).delete();
        client.namespaces().withName(ns.getMetadata().getName()).delete();
      }
      client.nodes().withLabel(CaseGenerator.CASE_LABEL, c.prefix()).delete();
      client.persistentVolumes().withLabel(CaseGenerator.CASE_LABEL, c.prefix()).delete();
      client
          .storage()
          .v1()
          .storageClasses()
          .withLabel(CaseGenerator.CASE_LABEL, c.prefix())
          .delete();
    } catch (RuntimeException e) {
      System.out.println("differential: cleanup of " + c.prefix() + " failed: " + e);
    }
  }
}
