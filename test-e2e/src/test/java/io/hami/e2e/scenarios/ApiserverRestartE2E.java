package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.ControlPlaneOptions;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.model.Annotations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The kube-apiserver restarted (same data, same port) while the scheduler binds and node agents
 * allocate a stream of pods: once stopped gracefully, once killed with SIGKILL. Nothing is
 * restarted on the client side: the scheduler's informers, the agents and the fake kubelets must
 * reconnect on their own and finish the workload, with no device handed out twice. Runs on a
 * control plane of its own, since it breaks it.
 */
class ApiserverRestartE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(120);
  private static final int PODS = 30;
  private static final int CREATED_BEFORE_RESTART = 10;

  @TempDir Path tmp;

  private static boolean done(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    return p.getSpec().getNodeName() != null
        && a != null
        && "success".equals(a.get(Annotations.BIND_PHASE))
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase());
  }

  /** How the apiserver goes down. */
  enum Stop {
    /** SIGTERM: in-flight requests are drained. */
    GRACEFUL,
    /** SIGKILL: connections are cut mid-request. */
    CRASH,
    /**
     * SIGKILL, and back only after the scheduler's informer grace: the scheduler replaces the
     * informers that stopped watching, and the replacements take over when it returns.
     */
    LONG_OUTAGE
  }

  /** Longer than the scheduler's informer grace (30 s) and check period (5 s). */
  private static final Duration LONG_OUTAGE = Duration.ofSeconds(40);

  @ParameterizedTest(name = "{0}")
  @EnumSource(Stop.class)
  void apiserverRestartedMidRun_schedulerAndAgentsReconnectAndFinishTheWorkload(Stop stop)
      throws Exception {
    ControlPlane cp =
        ControlPlane.start(
            ControlPlaneOptions.defaults(ControlPlaneExtension.moduleDir())
                .withWorkDir(tmp.resolve("cp")));
    List<AutoCloseable> closers = new ArrayList<>();
    try (KubernetesClient client = cp.newAdminClient()) {
      String ns = "e2e-apiserver-restart";
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      client
          .serviceAccounts()
          .inNamespace(ns)
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName("default")
                  .endMetadata()
                  .build())
          .create();

      // Each component has its own connection, as separate processes would.
      KubernetesClient schedulerClient = cp.newAdminClient();
      closers.add(schedulerClient);
      Scheduler scheduler = Scheduler.start(schedulerClient);
      closers.add(0, scheduler);
      List<GpuNode> nodes = new ArrayList<>();
      for (String name : List.of("restart-a", "restart-b")) {
        KubernetesClient nodeClient = cp.newAdminClient();
        closers.add(nodeClient);
        GpuNode n =
            GpuNode.start(
                nodeClient, tmp, name, 10, List.of(GpuNode.gpu(0, 16000), GpuNode.gpu(1, 16000)));
        closers.add(0, n);
        nodes.add(n);
      }

      // The workload: pods created one after another, each create retried until the apiserver takes
      // it.
      AtomicInteger created = new AtomicInteger();
      AtomicInteger createRetries = new AtomicInteger();
      // A long outage holds the rest of the workload back until the apiserver returns: a pod
      // whose Allocate falls in the outage fails admission, as it would under a real kubelet.
      CountDownLatch back = new CountDownLatch(stop == Stop.LONG_OUTAGE ? 1 : 0);
      CompletableFuture<Void> creator =
          CompletableFuture.runAsync(
              () -> {
                for (int i = 0; i < PODS; i++) {
                  if (i == CREATED_BEFORE_RESTART) {
                    awaitQuietly(back);
                  }
                  Pod pod = GpuPods.named(String.format("p-%02d", i)).gpu(1, 2000, 10).build();
                  while (true) {
                    try {
                      client.pods().inNamespace(ns).resource(pod).create();
                      break;
                    } catch (KubernetesClientException e) {
                      if (e.getCode() == 409) {
                        break; // created by an earlier try whose answer was lost
                      }
                      createRetries.incrementAndGet();
                      sleep(200);
                    }
                  }
                  created.incrementAndGet();
                  sleep(300);
                }
              });

      await().atMost(PATIENCE).until(() -> created.get() >= CREATED_BEFORE_RESTART);
      if (stop == Stop.LONG_OUTAGE) {
        await().atMost(PATIENCE).until(() -> countDone(client, ns) == CREATED_BEFORE_RESTART);
      }
      int createdAtRestart = created.get();
      long boundAtRestart = countDone(client, ns);
      long restartBegan = System.nanoTime();
      if (stop != Stop.GRACEFUL) {
        cp.killApiServer();
      }
      if (stop == Stop.LONG_OUTAGE) {
        Thread.sleep(LONG_OUTAGE.toMillis());
      }
      cp.restartApiServer();
      back.countDown();
      long ready = System.nanoTime();
      // Recovery: the first pod that completes after the apiserver is back.
      long doneAtReady = countDone(client, ns);
      await()
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(20))
          .ignoreExceptions()
          .until(() -> countDone(client, ns) > doneAtReady || countDone(client, ns) == PODS);
      long firstAfter = System.nanoTime();
      creator.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

      List<Pod> finished = awaitAllDone(client, ns, nodes);
      long finishedAt = System.nanoTime();

      if (stop == Stop.LONG_OUTAGE) {
        assertThat(scheduler.informerReplacements())
            .as("informers the scheduler replaced while the apiserver was away")
            .isPositive();
      }
      Set<String> names = new HashSet<>();
      nodes.forEach(n -> names.add(n.name()));
      assertThat(Invariants.check(client, names)).as("invariants on %s", names).isEmpty();
      for (GpuNode n : nodes) {
        assertThat(n.allocateErrors()).as("Allocate errors on %s", n.name()).isEmpty();
        await().atMost(PATIENCE).until(() -> !n.locked());
      }
      for (Pod p : finished) {
        List<List<Invariants.Use>> devices =
            Invariants.parseDevices(
                p.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED));
        GpuNode n =
            nodes.stream()
                .filter(x -> x.name().equals(p.getSpec().getNodeName()))
                .findFirst()
                .orElseThrow();
        assertThat(n.allocation(p.getMetadata().getUid()).get("cuda"))
            .as("Allocate of %s", p.getMetadata().getName())
            .isNotNull()
            .satisfies(
                r ->
                    assertThat(r.getEnvsMap())
                        .containsEntry("NVIDIA_VISIBLE_DEVICES", devices.get(0).get(0).uuid()));
      }
      Map<String, Long> perNode =
          finished.stream()
              .collect(
                  Collectors.groupingBy(p -> p.getSpec().getNodeName(), Collectors.counting()));
      System.out.printf(
          "e2e: apiserver restart (%s): restarted when %d of %d pods were created and %d running; down and back to"
              + " ready in %.1f s; %d pod creates failed and were retried; next pod running %.2f s and every pod"
              + " %.1f s after the apiserver was ready (per node %s)%n",
          stop,
          createdAtRestart,
          PODS,
          boundAtRestart,
          (ready - restartBegan) / 1e9,
          createRetries.get(),
          (firstAfter - ready) / 1e9,
          (finishedAt - ready) / 1e9,
          perNode);
    } catch (Throwable t) {
      saveLogs(cp);
      throw t;
    } finally {
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
   * Waits for every pod to be done. On a timeout the failure names each pod that is not, with where
   * it stands, and the nodes' locks and Allocate errors, rather than printing every pod object.
   */
  private static List<Pod> awaitAllDone(KubernetesClient client, String ns, List<GpuNode> nodes)
      throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    List<Pod> last = List.of();
    String lastError = "";
    while (System.nanoTime() < deadline) {
      try {
        last = client.pods().inNamespace(ns).list().getItems();
        if (last.size() == PODS && last.stream().allMatch(ApiserverRestartE2E::done)) {
          return last;
        }
      } catch (KubernetesClientException e) {
        lastError = "; last list failed: " + e.getMessage();
      }
      Thread.sleep(100);
    }
    StringBuilder why = new StringBuilder();
    why.append(last.size()).append(" of ").append(PODS).append(" pods exist");
    for (Pod p : last) {
      if (!done(p)) {
        Map<String, String> a = p.getMetadata().getAnnotations();
        why.append("\n  not done: ")
            .append(p.getMetadata().getName())
            .append(" node=")
            .append(p.getSpec().getNodeName())
            .append(" bind-phase=")
            .append(a == null ? null : a.get(Annotations.BIND_PHASE))
            .append(" phase=")
            .append(p.getStatus() == null ? null : p.getStatus().getPhase())
            .append(" reason=")
            .append(p.getStatus() == null ? null : p.getStatus().getReason())
            .append(" message=")
            .append(p.getStatus() == null ? null : p.getStatus().getMessage());
      }
    }
    for (GpuNode n : nodes) {
      String lock;
      try {
        lock = n.annotations().get(Annotations.MUTEX_LOCK);
      } catch (KubernetesClientException e) {
        lock = "unreadable: " + e.getMessage();
      }
      why.append("\n  node ")
          .append(n.name())
          .append(": lock=")
          .append(lock)
          .append(" allocateErrors=")
          .append(n.allocateErrors());
    }
    throw new AssertionError(
        "not every pod was running within " + PATIENCE + ": " + why + lastError);
  }

  private static long countDone(KubernetesClient client, String ns) {
    return client.pods().inNamespace(ns).list().getItems().stream()
        .filter(ApiserverRestartE2E::done)
        .count();
  }

  private static void saveLogs(ControlPlane cp) {
    Path out = ControlPlaneExtension.moduleDir().resolve("target/diagnostics/ApiserverRestartE2E");
    try {
      Files.createDirectories(out);
      for (var e : cp.componentLogs().entrySet()) {
        if (Files.exists(e.getValue())) {
          Files.copy(
              e.getValue(), out.resolve(e.getKey() + ".log"), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (Exception e) {
      System.err.println("could not save the control plane logs to " + out + ": " + e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      if (!latch.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("the apiserver did not return within " + PATIENCE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
