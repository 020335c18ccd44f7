package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.runtime.ClientRequestMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The API ceiling of a GPU workload: the same pods bound round-robin by {@link CeilingBinder} in
 * this JVM, with the node lock's writes and no scheduling, so that the scheduler's rate can be read
 * against what the API server allows for that protocol.
 */
final class CeilingPhase {
  /** Binds the warm-up pods through {@code offer}. */
  @FunctionalInterface
  interface WarmUp {
    void run(Consumer<Pod> offer) throws Exception;
  }

  private final Harness h;
  private final boolean backlog;
  private final boolean lockFree;

  /**
   * @param backlog whether every pod is offered to the binder only once all are created
   * @param lockFree whether the scheduler under test runs in lock mode {@code scheduler}: the
   *     ceiling then makes the binding alone
   */
  CeilingPhase(Harness h, boolean backlog, boolean lockFree) {
    this.h = h;
    this.backlog = backlog;
    this.lockFree = lockFree;
  }

  /**
   * @param nodes the nodes to bind to, round-robin
   * @param warmUp binds the warm-up pods through the offer it is given
   */
  BenchReport.Phase measure(
      Path kubeconfig,
      KubernetesClient admin,
      List<Workload.Shape> shapes,
      List<String> nodes,
      WarmUp warmUp)
      throws Exception {
    Workload w = h.workload();
    h.say("API ceiling: binding the same %d pods round-robin without scheduling", shapes.size());
    ClientRequestMetrics metrics = new ClientRequestMetrics();
    PrometheusRegistry registry = new PrometheusRegistry();
    metrics.register(registry);
    try (KubernetesClient binderClient = ClusterBench.client(kubeconfig, metrics);
        CeilingBinder binder =
            new CeilingBinder(
                binderClient,
                nodes,
                w.nodes().gpusPerNode(),
                w.scheduler().bindingThreads(),
                lockFree);
        BindTracker tracker =
            new BindTracker(admin, ClusterBench.NAMESPACE, "ceiling", System::nanoTime)) {
      warmUp.run(binder::offer);
      Map<String, Double> warm = PhaseFigures.counts(registry);
      tracker.start();
      ScheduledExecutorService progress =
          Executors.newSingleThreadScheduledExecutor(Daemons.named("bench-progress"));
      // Runs until progress is shut down below.
      var unusedProgress =
          progress.scheduleAtFixedRate(
              () -> h.say("  %s: %s", tracker.group(), tracker.progress()), 5, 5, TimeUnit.SECONDS);
      PodCreator creator =
          new PodCreator(admin, ClusterBench.NAMESPACE, ClusterBench.CEILING_SCHEDULER);
      if (backlog) {
        // The binder's backlog: every pod offered at once when all are created.
        List<Pod> held = Collections.synchronizedList(new ArrayList<>());
        creator.createAll(
            shapes, "ceiling", w.pods().qps(), w.pods().clients(), tracker, held::add);
        tracker.released(System.nanoTime());
        List.copyOf(held).forEach(binder::offer);
      } else {
        Consumer<Pod> offer = binder::offer;
        creator.createAll(shapes, "ceiling", w.pods().qps(), w.pods().clients(), tracker, offer);
      }
      String stopped = h.awaitBound(tracker, () -> true);
      if (stopped != null) {
        h.error("API ceiling: " + tracker.pending() + " pods unbound (" + stopped + ")");
      }
      progress.shutdownNow();
      if (binder.failures() > 0) {
        h.error(binder.failures() + " ceiling binds failed");
      }
      Map<String, Double> requests = PhaseFigures.counts(registry);
      warm.forEach((k, v) -> requests.merge(k, -v, Double::sum));
      requests.values().removeIf(v -> v <= 0);
      // The ceiling runs in this JVM, beside the harness; its CPU time is not separable.
      return PhaseFigures.phase("API ceiling", tracker, requests, 0, null, null, Map.of());
    }
  }
}
