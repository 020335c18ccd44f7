package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.ControlPlaneOptions;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.scenarios.ChaosPlan.Fault;
import io.hami.model.Annotations;
import io.hami.model.Decoded;
import io.hami.model.lock.NodeLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a steady stream of GPU pods, a seeded schedule kills (SIGKILL) and restarts the scheduler,
 * a node agent, the apiserver and etcd at random moments, 20 faults in all. Afterwards every pod is
 * bound exactly once or pending with a reason, no device is over-committed, no lock is held by a
 * pod that is gone for longer than the lock timeout, and every pod a node agent served has {@code
 * bind-phase: success}.
 *
 * <p>Everything runs as processes this test owns: its own etcd and kube-apiserver, {@code hami
 * scheduler}, and one {@code hami node-agent --fake-gpus} per node beside a fake kubelet (in the
 * test JVM) that calls Allocate. Pods are deleted once running (or rejected), so capacity frees,
 * and, while pods are being created, when older than a time to live (as impatient users do), so the
 * backlog stays bounded on a small machine; the settle phase deletes only finished pods.
 *
 * <p>System properties (see {@link ChaosPlan}): {@code hami.chaos.seed} (default {@value
 * ChaosPlan#DEFAULT_SEED}, so that CI replays one schedule; printed), {@code hami.chaos.seconds}
 * (the fault phase, default 120), {@code hami.chaos.faults} (default 20), {@code hami.chaos.rate}
 * (pods per second, default {@value ChaosPlan#DEFAULT_RATE}, which a loaded 2-core machine keeps up
 * with between the faults; {@code -Dhami.chaos.rate=20} is the full version, which overloads 2
 * cores: the node locks pass one pod per node at a time, so pods wait minutes), {@code
 * hami.chaos.nodes} (default 4), {@code hami.chaos.podTtlSeconds} (default 20) and {@code
 * hami.chaos.settleSeconds} (the most the settle phase waits, default 240; it ends earlier once
 * everything settled, or when nothing moved for a minute). The progress and summary lines start
 * with {@code chaos:}, the outcome with {@code e2e: chaos}.
 */
class ChaosE2E {
  private static final String NS = "chaos";
  private static final int SPLIT = 10;
  private static final String FAKE_GPUS = "2xTesla-T4:16000MiB";
  private static final long LOCK_TIMEOUT_SECONDS = 20;

  /** The settle phase ends when nothing moved for this long. */
  private static final Duration STALL = Duration.ofSeconds(60);

  private static final Duration RESTART_PATIENCE = Duration.ofSeconds(90);

  @TempDir Path tmp;

  /** What happened to a fault. */
  record Injected(Fault fault, double killedAt, double backAfter, String what) {}

  @Test
  void seededFaults_underSteadyGpuLoad_keepTheInvariants() throws Exception {
    ChaosPlan chaos = ChaosPlan.fromSystemProperties();
    long seed = chaos.seed();
    long phaseMillis = chaos.phase().toMillis();
    int faultCount = chaos.faults();
    int rate = chaos.rate();
    int nodeCount = chaos.nodes();
    long ttlSeconds = chaos.podTtl().getSeconds();
    List<Fault> plan = chaos.schedule();
    System.out.printf(
        "chaos: seed=%d (-Dhami.chaos.seed=%d to replay) faults=%d over %d s, %d pods/s deleted"
            + " when running or %d s old, %d nodes of %s split %d, lock timeout %d s%n",
        seed,
        seed,
        faultCount,
        phaseMillis / 1000,
        rate,
        ttlSeconds,
        nodeCount,
        FAKE_GPUS,
        SPLIT,
        LOCK_TIMEOUT_SECONDS);

    ControlPlane cp =
        ControlPlane.start(
            ControlPlaneOptions.defaults(ControlPlaneExtension.moduleDir())
                .withWorkDir(tmp.resolve("cp")));
    List<AutoCloseable> closers = new ArrayList<>();
    Map<String, AgentProcess> agents = new ConcurrentHashMap<>();
    List<GpuNode> nodes = new ArrayList<>();
    SchedulerProcess[] scheduler = new SchedulerProcess[1];
    ChaosWorkload[] workload = new ChaosWorkload[1];
    try (KubernetesClient client = cp.newAdminClient()) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .create();
      client
          .serviceAccounts()
          .inNamespace(NS)
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName("default")
                  .endMetadata()
                  .build())
          .create();
      Path config =
          SchedulerProcess.configWith(
              tmp,
              "chaos-scheduler.yaml",
              Map.of(
                  "lockTimeoutSeconds",
                  Long.toString(LOCK_TIMEOUT_SECONDS),
                  "waitTimeoutSeconds",
                  "60"));
      AtomicInteger schedulerStarts = new AtomicInteger();
      scheduler[0] =
          SchedulerProcess.start(cp, config, "chaos-" + schedulerStarts.incrementAndGet(), false);

      for (int i = 0; i < nodeCount; i++) {
        String name = "chaos-" + i;
        KubernetesClient kubeletClient = cp.newAdminClient();
        closers.add(kubeletClient);
        GpuNode n = GpuNode.startWithoutAgent(kubeletClient, tmp, FakeNode.named(name));
        closers.add(0, n);
        nodes.add(n);
        agents.put(name, AgentProcess.start(cp, tmp, name, FAKE_GPUS, SPLIT));
      }
      for (GpuNode n : nodes) {
        awaitHealthy(n);
      }
      Set<String> nodeNames = new HashSet<>();
      nodes.forEach(n -> nodeNames.add(n.name()));

      // The workload: `rate` creates a second, each retried through API outages.
      ChaosWorkload w = new ChaosWorkload(client, NS, rate, chaos.podTtl());
      workload[0] = w;
      long start = System.nanoTime();
      // Progress every 10 s, so that a slow drain and a stuck pod look different in the log.
      Thread monitor =
          new Thread(
              () -> {
                while (w.running()) {
                  ChaosWorkload.sleepQuietly(10_000);
                  try {
                    List<Pod> pods = client.pods().inNamespace(NS).list().getItems();
                    long bound =
                        pods.stream().filter(p -> p.getSpec().getNodeName() != null).count();
                    long reason = pods.stream().filter(PendingPods::hasReason).count();
                    int allocated = 0;
                    for (GpuNode n : nodes) {
                      allocated += n.allocatedPods().size();
                    }
                    System.out.printf(
                        "chaos: t=%.0f s created=%d pods=%d bound=%d pending with reason=%d without=%d"
                            + " allocated=%d queues=%s%n",
                        (System.nanoTime() - start) / 1e9,
                        w.created.get(),
                        pods.size(),
                        bound,
                        reason,
                        pods.size() - bound - reason,
                        allocated,
                        queues(scheduler[0]));
                  } catch (RuntimeException e) {
                    System.out.println("chaos: progress unknown: " + e);
                  }
                }
              },
              "chaos-monitor");
      monitor.setDaemon(true);
      w.start(start);
      monitor.start();

      // The faults, one after another.
      List<Injected> injected = new ArrayList<>();
      for (Fault f : plan) {
        long due = start + TimeUnit.MILLISECONDS.toNanos(f.atMillis());
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        double killedAt = (System.nanoTime() - start) / 1e9;
        String what;
        switch (f.target()) {
          case SCHEDULER -> {
            what = "SIGKILL " + scheduler[0].identity();
            scheduler[0].kill();
            Thread.sleep(f.downMillis());
            scheduler[0] =
                SchedulerProcess.start(
                    cp, config, "chaos-" + schedulerStarts.incrementAndGet(), false);
          }
          case AGENT -> {
            GpuNode n = nodes.get(f.agentIndex());
            what = "SIGKILL node agent of " + n.name();
            agents.get(n.name()).kill();
            Thread.sleep(f.downMillis());
            // Not waited for: the schedule goes on while the agent starts and registers again.
            agents.put(n.name(), AgentProcess.start(cp, tmp, n.name(), FAKE_GPUS, SPLIT));
          }
          case APISERVER -> {
            what = "SIGKILL kube-apiserver";
            cp.killApiServer();
            Thread.sleep(f.downMillis());
            cp.restartApiServer();
          }
          case ETCD -> {
            what = "SIGKILL etcd";
            cp.killEtcd();
            Thread.sleep(f.downMillis());
            cp.restartEtcd();
          }
          default -> throw new IllegalStateException(f.target().toString());
        }
        double back = (System.nanoTime() - start) / 1e9 - killedAt;
        injected.add(new Injected(f, killedAt, back, what));
        System.out.printf(
            "chaos: fault %d/%d at %.1f s: %s, down %d ms, back after %.1f s%n",
            injected.size(), plan.size(), killedAt, what, f.downMillis(), back);
      }
      long phaseEnd = start + TimeUnit.MILLISECONDS.toNanos(phaseMillis);
      long rest = phaseEnd - System.nanoTime();
      if (rest > 0) {
        TimeUnit.NANOSECONDS.sleep(rest);
      }
      w.stopCreating();
      for (GpuNode n : nodes) {
        awaitHealthy(n);
      }
      double workloadSeconds = (System.nanoTime() - start) / 1e9;

      // Settle: every pod left is pending with a reason, and no lock outlives its gone holder.
      // Waits while things move (fewer unsettled, or fewer pods: the backlog being scheduled,
      // run and deleted), up to a bound in all; a pod that is lost stops the movement.
      long settleStart = System.nanoTime();
      long settleDeadline = settleStart + chaos.settle().toNanos();
      long lastProgress = settleStart;
      int fewestUnsettled = Integer.MAX_VALUE;
      int fewestPods = Integer.MAX_VALUE;
      List<String> unsettled = List.of("(not checked)");
      while (System.nanoTime() < settleDeadline
          && System.nanoTime() - lastProgress < STALL.toNanos()) {
        try {
          List<Pod> pods = client.pods().inNamespace(NS).list().getItems();
          unsettled = unsettled(client, pods, nodeNames);
          if (unsettled.isEmpty()) {
            break;
          }
          if (unsettled.size() < fewestUnsettled || pods.size() < fewestPods) {
            fewestUnsettled = Math.min(fewestUnsettled, unsettled.size());
            fewestPods = Math.min(fewestPods, pods.size());
            lastProgress = System.nanoTime();
          }
        } catch (KubernetesClientException e) {
          unsettled = List.of("apiserver: " + e.getMessage());
        }
        Thread.sleep(500);
      }
      if (!unsettled.isEmpty()) {
        // Why each pod is still where it is, so that a failure can be read from the log.
        System.out.printf(
            "chaos: settle ended (%s) with scheduler queues %s%n",
            System.nanoTime() < settleDeadline ? "nothing moved for " + STALL : "bound reached",
            queues(scheduler[0]));
        // Where its threads stand, into its log (saved with the diagnostics below).
        scheduler[0].dumpThreads();
        List<Pod> pods = client.pods().inNamespace(NS).list().getItems();
        for (String line : PendingPods.describe(client, pods, Instant.now(), 50)) {
          System.out.println("chaos: unsettled: " + line);
        }
      }
      double settled = (System.nanoTime() - settleStart) / 1e9;
      w.stopDeleting();

      // The four invariants, as the issue states them. Pods served are taken before the pods are
      // read, so that what is read is newer than every Allocate counted.
      List<String> violations = new ArrayList<>();
      Map<String, String> allocatedOn = new HashMap<>();
      for (GpuNode n : nodes) {
        for (String uid : n.allocatedPods()) {
          String other = allocatedOn.put(uid, n.name());
          if (other != null) {
            violations.add("pod " + uid + ": Allocate on " + other + " and on " + n.name());
          }
        }
      }
      List<Pod> left = client.pods().inNamespace(NS).list().getItems();
      Map<String, Integer> pendingReasons = new TreeMap<>();
      int boundLeft = 0;
      for (Pod p : left) {
        ChaosWorkload.Seen s = w.observe(p);
        if (s.node() != null) {
          boundLeft++;
          if (!"Running".equals(s.phase()) && !"Failed".equals(s.phase())) {
            violations.add(s.name() + ": bound to " + s.node() + " but " + s.phase());
          }
          continue;
        }
        PodCondition c = PendingPods.scheduledCondition(p);
        if (c == null || !"False".equals(c.getStatus()) || c.getReason() == null) {
          violations.add(s.name() + ": pending without a reason");
        } else {
          pendingReasons.merge(c.getReason() + ": " + c.getMessage(), 1, Integer::sum);
        }
      }
      w.boundTo.forEach(
          (uid, ns) -> {
            if (ns.size() > 1) {
              violations.add("pod " + uid + ": bound to " + ns);
            }
          });
      violations.addAll(Invariants.check(client, nodeNames));
      violations.addAll(staleLocks(client, nodeNames, w.deletedAt));
      int served = 0;
      int unverifiable = 0;
      Set<String> leftUids = new HashSet<>();
      left.forEach(p -> leftUids.add(p.getMetadata().getUid()));
      for (String uid : allocatedOn.keySet()) {
        served++;
        ChaosWorkload.Seen s = w.seen.get(uid);
        if (w.deletedEarly.contains(uid) && !leftUids.contains(uid)) {
          unverifiable++;
        } else if (s == null) {
          violations.add("pod " + uid + ": served on " + allocatedOn.get(uid) + ", never seen");
        } else if (!"success".equals(s.bindPhase())) {
          violations.add(
              s.name()
                  + ": served on "
                  + allocatedOn.get(uid)
                  + " with bind-phase "
                  + s.bindPhase());
        }
      }
      Map<String, Integer> rejected = new TreeMap<>();
      w.seen.values().stream()
          .filter(s -> "Failed".equals(s.phase()))
          .forEach(s -> rejected.merge(String.valueOf(s.reason()), 1, Integer::sum));

      System.out.printf(
          "chaos: pods created=%d in %.1f s (%.1f/s; %d create attempts failed and were retried, %d"
              + " not created), bound=%d, served (Allocate ok)=%d, rejected by kubelet=%s,"
              + " deleted=%d, left=%d (bound %d, pending %d)%n",
          w.created.get(),
          workloadSeconds,
          w.created.get() / workloadSeconds,
          w.createRetries.get(),
          w.notCreated.get(),
          w.boundTo.size(),
          served,
          rejected,
          w.deleted.get(),
          left.size(),
          boundLeft,
          left.size() - boundLeft);
      System.out.printf(
          "chaos: served pods deleted before they ran (bind-phase not checkable): %d%n",
          unverifiable);
      System.out.printf("chaos: pending reasons: %s%n", pendingReasons);
      System.out.printf(
          "chaos: settled in %.1f s%s%n",
          settled, unsettled.isEmpty() ? "" : " (still unsettled: " + head(unsettled) + ")");
      System.out.printf(
          "chaos: scheduler starts=%d; faults injected=%d: %s%n",
          schedulerStarts.get(), injected.size(), summary(injected));
      System.out.printf(
          "chaos: violations=%d%s%n",
          violations.size(), violations.isEmpty() ? "" : ": " + head(violations));
      System.out.printf(
          "e2e: chaos seed %d, %d faults (%s), %d pods/s: %s; created %d, bound %d, served %d,"
              + " violations %d, longest outage %.1f s, settled in %.1f s%n",
          seed,
          injected.size(),
          kinds(injected),
          rate,
          violations.isEmpty() ? "passed" : "FAILED",
          w.created.get(),
          w.boundTo.size(),
          served,
          violations.size(),
          longestOutage(injected),
          settled);
      assertThat(injected).hasSize(faultCount);
      assertThat(violations).as("invariant violations (seed %d)", seed).isEmpty();
    } catch (Throwable t) {
      saveLogs(cp);
      throw t;
    } finally {
      if (workload[0] != null) {
        workload[0].close();
      }
      if (scheduler[0] != null) {
        scheduler[0].close();
      }
      agents.values().forEach(AgentProcess::close);
      for (AutoCloseable c : closers) {
        try {
          c.close();
        } catch (Exception e) {
          // Close the rest; the control plane goes last.
        }
      }
      cp.close();
    }
  }

  /**
   * Pods not yet in a final state for the check (bound but not yet run and deleted, or pending
   * without a reason) and held locks.
   */
  private static List<String> unsettled(
      KubernetesClient client, List<Pod> pods, Set<String> nodeNames) {
    List<String> out = new ArrayList<>();
    for (Pod p : pods) {
      String name = p.getMetadata().getName();
      if (p.getSpec().getNodeName() != null) {
        out.add(name + " bound, not yet deleted");
      } else if (!PendingPods.hasReason(p)) {
        out.add(name + " pending, no reason yet");
      }
    }
    for (String n : nodeNames) {
      Node node = client.nodes().withName(n).get();
      Map<String, String> a = node == null ? null : node.getMetadata().getAnnotations();
      String lock = a == null ? null : a.get(Annotations.MUTEX_LOCK);
      if (lock != null) {
        out.add(n + " locked: " + lock);
      }
    }
    return out;
  }

  /** Locks held by a pod that has been gone for longer than the lock timeout. */
  private static List<String> staleLocks(
      KubernetesClient client, Set<String> nodeNames, Map<String, Instant> deletedAt) {
    List<String> out = new ArrayList<>();
    Instant now = Instant.now();
    for (String n : nodeNames) {
      Node node = client.nodes().withName(n).get();
      Map<String, String> a = node == null ? null : node.getMetadata().getAnnotations();
      String value = a == null ? null : a.get(Annotations.MUTEX_LOCK);
      if (value == null) {
        continue;
      }
      if (!(NodeLock.decode(value) instanceof Decoded.Ok<NodeLock> ok)) {
        out.add(n + ": unreadable lock " + value);
        continue;
      }
      NodeLock lock = ok.value();
      if (lock.isTimeOnly()) {
        if (Duration.between(lock.time().toInstant(), now).getSeconds() > LOCK_TIMEOUT_SECONDS) {
          out.add(n + ": lock " + value + " without a holder, older than the lock timeout");
        }
        continue;
      }
      Pod holder = client.pods().inNamespace(lock.namespace()).withName(lock.name()).get();
      boolean gone =
          holder == null
              || holder.getStatus() != null
                  && ("Failed".equals(holder.getStatus().getPhase())
                      || "Succeeded".equals(holder.getStatus().getPhase()));
      if (!gone) {
        continue;
      }
      Instant since = deletedAt.getOrDefault(lock.name(), lock.time().toInstant());
      long goneFor = Duration.between(since, now).getSeconds();
      if (goneFor > LOCK_TIMEOUT_SECONDS) {
        out.add(
            n
                + ": lock "
                + value
                + " held by "
                + lock.namespace()
                + "/"
                + lock.name()
                + ", gone for "
                + goneFor
                + " s (lock timeout "
                + LOCK_TIMEOUT_SECONDS
                + " s)");
      }
    }
    return out;
  }

  private static void awaitHealthy(GpuNode n) throws Exception {
    int want = 2 * SPLIT;
    n.kubelet()
        .awaitDevices(
            GpuNode.RESOURCE,
            d -> d.size() == want && d.stream().allMatch(x -> "Healthy".equals(x.getHealth())),
            RESTART_PATIENCE);
  }

  private static String summary(List<Injected> injected) {
    return kinds(injected) + String.format(", longest outage %.1f s", longestOutage(injected));
  }

  private static Map<ChaosPlan.Target, Integer> kinds(List<Injected> injected) {
    Map<ChaosPlan.Target, Integer> byKind = new LinkedHashMap<>();
    injected.forEach(i -> byKind.merge(i.fault().target(), 1, Integer::sum));
    return byKind;
  }

  private static double longestOutage(List<Injected> injected) {
    return injected.stream().mapToDouble(Injected::backAfter).max().orElse(0);
  }

  private static String queues(SchedulerProcess s) {
    Map<String, Double> out = new LinkedHashMap<>();
    try {
      for (String q : List.of("active", "backoff", "unschedulable", "in_flight")) {
        out.put(q, s.metric("hami_scheduler_pending_pods", "queue=\"" + q + "\""));
      }
      out.put("informers_replaced", s.metric("hami_scheduler_informer_replacements_total", ""));
    } catch (Exception e) {
      return out + " (" + e + ")";
    }
    return out.toString();
  }

  private static String head(List<String> lines) {
    List<String> first = lines.subList(0, Math.min(20, lines.size()));
    return String.join("; ", first) + (lines.size() > 20 ? "; ... (" + lines.size() + ")" : "");
  }

  private static void saveLogs(ControlPlane cp) {
    Path out = ControlPlaneExtension.moduleDir().resolve("target/diagnostics/ChaosE2E");
    try {
      Files.createDirectories(out);
      for (var e : cp.componentLogs().entrySet()) {
        if (Files.exists(e.getValue())) {
          Files.copy(
              e.getValue(), out.resolve(e.getKey() + ".log"), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (Exception e) {
      System.err.println("could not save the component logs to " + out + ": " + e);
    }
  }
}
