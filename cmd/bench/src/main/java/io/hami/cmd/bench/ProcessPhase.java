package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The warm-up and the measured pods of a phase whose scheduler runs in its own process, ours or
 * kube-scheduler: pods made by the caller in one namespace, created at the workload's rate and
 * tracked until bound, the process's metrics scraped before and after, its heap sampled each
 * second. For kube-scheduler the Events it wrote during the phase are counted from the Events
 * themselves, and split out of its requests, which its client counts by HTTP method only.
 */
final class ProcessPhase {
  private final Harness h;
  private final String name;
  private final String namespace;
  private final String schedulerName;
  private final boolean backlog;

  /**
   * @param name the phase's row in the report
   * @param namespace where its pods are created
   * @param schedulerName the {@code spec.schedulerName} its pods carry
   * @param backlog whether the measured pods are created while the scheduler is paused and measured
   *     from its resume ({@code --backlog})
   */
  ProcessPhase(Harness h, String name, String namespace, String schedulerName, boolean backlog) {
    this.h = h;
    this.name = name;
    this.namespace = namespace;
    this.schedulerName = schedulerName;
    this.backlog = backlog;
  }

  String name() {
    return name;
  }

  /**
   * Schedules {@code n} pods of {@code group} and deletes them again, so that the scheduler is
   * measured warm (ours JIT-compiled), as long-running schedulers run.
   *
   * @param pods pod {@code i}, labelled with {@code group}
   */
  void warmUp(ScrapedProcess scheduler, String group, int n, IntFunction<Pod> pods)
      throws Exception {
    if (n == 0) {
      return;
    }
    h.say("%s: warming up with %d pods", name, n);
    KubernetesClient admin = h.admin();
    Workload w = h.workload();
    try (BindTracker tracker = new BindTracker(admin, namespace, group, System::nanoTime)) {
      tracker.start();
      // A backlog is drained warm only if the warm-up drained backlogs too: a queue of hundreds
      // of pods runs code the arrival of one pod at a time leaves cold.
      Backlog.hold(
          backlog ? scheduler : null,
          tracker,
          () ->
              new PodCreator(admin, namespace, schedulerName)
                  .createAll(
                      n,
                      pods,
                      new PodCreator.Rate(w.pods().qps(), w.pods().clients()),
                      tracker,
                      p -> {}));
      String stopped = h.awaitBound(tracker, scheduler::isAlive);
      if (stopped != null) {
        h.error(name + ": " + tracker.pending() + " warm-up pods unbound (" + stopped + ")");
      }
    }
    h.deletePods(namespace, group);
    // The scheduler's informer sees the deletions a moment after the API server lists none.
    Harness.sleep(1000);
  }

  /**
   * The warm-up the measure needs: from a backlog, rounds until steady ({@link
   * #warmUpUntilSteady}), since a drained backlog runs what only compiled code keeps up with; at an
   * arrival rate, one round ({@link #warmUp}).
   *
   * @return the warm-up pods bound and deleted in all rounds
   */
  int warmUpForMeasure(ScrapedProcess scheduler, String group, int n, IntFunction<Pod> pods)
      throws Exception {
    if (backlog) {
      return warmUpUntilSteady(scheduler, group, n, pods);
    }
    warmUp(scheduler, group, n, pods);
    return n;
  }

  /**
   * Warms up in rounds of {@code n} pods until the scheduler's CPU per pod has settled ({@link
   * SteadyState}), so that a JVM scheduler is measured with its hot code compiled.
   *
   * @return the warm-up pods bound and deleted in all rounds
   */
  int warmUpUntilSteady(ScrapedProcess scheduler, String group, int n, IntFunction<Pod> pods)
      throws Exception {
    if (n == 0) {
      return 0;
    }
    double best = Double.MAX_VALUE;
    for (int round = 1; ; round++) {
      double before = scheduler.scrape().sum(PhaseFigures.CPU_SECONDS);
      OptionalDouble jitBefore = CompilerCpu.seconds(scheduler.pid());
      warmUp(scheduler, group, n, pods);
      if (!scheduler.isAlive()) {
        // Its warm-up reported the error; more rounds would only wait on it.
        return round * n;
      }
      double cpu = scheduler.scrape().sum(PhaseFigures.CPU_SECONDS) - before;
      OptionalDouble jitAfter = CompilerCpu.seconds(scheduler.pid());
      double jit =
          jitBefore.isPresent() && jitAfter.isPresent()
              ? jitAfter.getAsDouble() - jitBefore.getAsDouble()
              : 0;
      double jitShare = cpu > 0 ? jit / cpu : 0;
      double perPod = cpu / n;
      h.say(
          "%s: warm-up round %d: %.2f ms CPU per pod, %.0f%% of it compiling",
          name, round, perPod * 1000, jitShare * 100);
      if (SteadyState.settled(round, round * n, best, perPod, jitShare)) {
        return round * n;
      }
      best = Math.min(best, perPod);
    }
  }

  /**
   * Creates {@code n} pods of {@code group} at the workload's rate and measures them until bound.
   *
   * @param pods pod {@code i}, labelled with {@code group}
   */
  BenchReport.Phase measure(ScrapedProcess scheduler, String group, int n, IntFunction<Pod> pods)
      throws Exception {
    KubernetesClient admin = h.admin();
    Workload w = h.workload();
    boolean kube = scheduler instanceof KubeSchedulerProcess;
    PromText before = scheduler.scrape();
    OptionalDouble jitBefore = CompilerCpu.seconds(scheduler.pid());
    // Events kube-scheduler had written before: the phase's own are counted exactly, whatever
    // else (a controller-manager, say) writes Events meanwhile.
    Set<String> eventsBefore = kube ? kubeSchedulerEvents(admin) : Set.of();
    List<Double> heap = new ArrayList<>();
    ScheduledExecutorService timers =
        Executors.newScheduledThreadPool(2, Daemons.named("bench-timer"));
    try (BindTracker tracker = new BindTracker(admin, namespace, group, System::nanoTime)) {
      tracker.start();
      // The periodic tasks run until timers is shut down below.
      var unusedSampling =
          timers.scheduleAtFixedRate(
              () -> {
                try {
                  PromText t = scheduler.scrape();
                  double bytes =
                      kube
                          ? t.sum(PhaseFigures.KUBE_HEAP)
                          : t.sum("jvm_memory_used_bytes", l -> "heap".equals(l.get("area")));
                  synchronized (heap) {
                    heap.add(bytes / (1 << 20));
                  }
                } catch (IOException | InterruptedException | RuntimeException e) {
                  // a missed sample; the next second tries again
                }
              },
              0,
              1,
              TimeUnit.SECONDS);
      var unusedProgress =
          timers.scheduleAtFixedRate(
              () -> h.say("  %s: %s", name, tracker.progress()), 5, 5, TimeUnit.SECONDS);
      h.say(
          "%s: creating %d pods at %s/s with %d clients%s",
          name,
          n,
          ClusterBench.fmt(w.pods().qps()),
          w.pods().clients(),
          backlog ? ", the scheduler paused" : "");
      PodCreator creator = new PodCreator(admin, namespace, schedulerName);
      Backlog.hold(
          backlog ? scheduler : null,
          tracker,
          () ->
              creator.createAll(
                  n,
                  pods,
                  new PodCreator.Rate(w.pods().qps(), w.pods().clients()),
                  tracker,
                  p -> {}));
      String stopped = h.awaitBound(tracker, scheduler::isAlive);
      if (stopped != null) {
        h.error(name + ": " + tracker.pending() + " measured pods unbound (" + stopped + ")");
      }
      timers.shutdownNow();
      timers.awaitTermination(10, TimeUnit.SECONDS);
      if (creator.failures() > 0) {
        h.error(name + ": " + creator.failures() + " pod creates failed");
      }
      PromText after = scheduler.scrape();
      Map<String, Double> requests;
      Map<String, Double> internals;
      double handshakeWrites = 0;
      if (kube) {
        requests =
            kubeRequests(scheduler, admin, before, after, eventsBefore, tracker.boundCount());
        internals = PhaseFigures.kubeInternals(before, after);
      } else {
        requests = PhaseFigures.requestDelta(before, after);
        handshakeWrites =
            after.sum(PhaseFigures.HANDSHAKE_WRITES) - before.sum(PhaseFigures.HANDSHAKE_WRITES);
        internals = PhaseFigures.internals(before, after);
      }
      double cpu = after.sum(PhaseFigures.CPU_SECONDS) - before.sum(PhaseFigures.CPU_SECONDS);
      OptionalDouble jitAfter = CompilerCpu.seconds(scheduler.pid());
      if (!kube && jitBefore.isPresent() && jitAfter.isPresent()) {
        internals.put("jitCpuSeconds", jitAfter.getAsDouble() - jitBefore.getAsDouble());
      }
      List<Double> heapSamples;
      synchronized (heap) {
        heapSamples = List.copyOf(heap);
      }
      return PhaseFigures.phase(
          name, tracker, requests, handshakeWrites, cpu, Stats.of(heapSamples), internals);
    } finally {
      timers.shutdownNow();
    }
  }

  /**
   * kube-scheduler's requests of the phase, its Events split out of its creates. Its client counts
   * a request when the answer has been read, and after a burst that lags the Events it wrote and
   * the bindings the watch saw by a moment: the counts are read again (for up to {@link
   * #SETTLE_MILLIS}) until its creates cover every binding and every Event it wrote.
   */
  private static Map<String, Double> kubeRequests(
      ScrapedProcess scheduler,
      KubernetesClient admin,
      PromText before,
      PromText after,
      Set<String> eventsBefore,
      int bound)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
    PromText now = after;
    while (true) {
      Map<String, Double> requests = PhaseFigures.kubeRequestDelta(before, now);
      Set<String> written = kubeSchedulerEvents(admin);
      written.removeAll(eventsBefore);
      double creates = requests.getOrDefault("create " + PhaseFigures.ANY_RESOURCE, 0.0);
      if (creates >= bound + written.size() || System.nanoTime() > deadline) {
        PhaseFigures.moveToEvents(requests, "create", written.size());
        return requests;
      }
      Thread.sleep(200);
      now = scheduler.scrape();
    }
  }

  /** How long kube-scheduler's request counts may take to catch up with the phase. */
  static final long SETTLE_MILLIS = 10_000;

  /** The UIDs of the Events that kube-scheduler ({@code default-scheduler}) has written. */
  private static Set<String> kubeSchedulerEvents(KubernetesClient admin) {
    Set<String> out = new HashSet<>();
    for (Event e : admin.v1().events().inAnyNamespace().list().getItems()) {
      String component = e.getSource() == null ? null : e.getSource().getComponent();
      if (KubeSchedulerProcess.SCHEDULER_NAME.equals(e.getReportingComponent())
          || KubeSchedulerProcess.SCHEDULER_NAME.equals(component)) {
        out.add(e.getMetadata().getUid());
      }
    }
    return out;
  }
}
