package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What every phase of one {@code hami bench cluster} run shares: the admin client, the workload,
 * the progress output, the harness errors collected for the report, and the waits between phases.
 * Thread-safe: timers and churn report errors from their own threads.
 */
final class Harness {
  /** How long no pod may bind while others wait before a phase stops waiting for them. */
  static final Duration STALL = Duration.ofSeconds(60);

  private final KubernetesClient admin;
  private final Workload w;
  private final PrintWriter out;
  private final List<String> errors = new ArrayList<>();

  Harness(KubernetesClient admin, Workload w, PrintWriter out) {
    this.admin = admin;
    this.w = w;
    this.out = out;
  }

  KubernetesClient admin() {
    return admin;
  }

  Workload workload() {
    return w;
  }

  void say(String fmt, Object... args) {
    synchronized (out) {
      out.printf(Locale.ROOT, fmt + "%n", args);
      out.flush();
    }
  }

  /** Adds a harness error to the report. */
  synchronized void error(String message) {
    errors.add(message);
  }

  /** Adds a harness error unless {@code limit} are there already (for errors that repeat). */
  synchronized void errorUpTo(int limit, String message) {
    if (errors.size() < limit) {
      errors.add(message);
    }
  }

  synchronized List<String> errors() {
    return List.copyOf(errors);
  }

  /**
   * Waits until every created pod of {@code tracker} is bound. Returns null then, or why it stopped
   * earlier: the workload's timeout, the binder gone, or no bind for {@link #STALL} (pods that fit
   * nowhere would otherwise hold the run until the timeout).
   */
  @Nullable String awaitBound(BindTracker tracker, BooleanSupplier alive)
      throws InterruptedException {
    long deadline = tracker.measuredFrom() + w.timeout().toNanos();
    int last = tracker.boundCount();
    long lastChange = System.nanoTime();
    while (tracker.pending() > 0) {
      long now = System.nanoTime();
      if (now >= deadline) {
        return "timed out after " + w.timeout().toSeconds() + " s";
      }
      if (!alive.getAsBoolean()) {
        return "the binder exited";
      }
      int bound = tracker.boundCount();
      if (bound != last) {
        last = bound;
        lastChange = now;
      } else if (now - lastChange > STALL.toNanos()) {
        return "no pod bound for " + STALL.toSeconds() + " s";
      }
      Thread.sleep(50);
    }
    return null;
  }

  /**
   * Deletes the pods of {@code namespace} (those of {@code group} only, when given) at once, as no
   * kubelet waits for them, and waits up to 5 minutes until the API server lists none.
   */
  void deletePods(String namespace, @Nullable String group) {
    FilterWatchListDeletable<Pod, PodList, PodResource> selected =
        group == null
            ? admin.pods().inNamespace(namespace)
            : admin.pods().inNamespace(namespace).withLabel(BenchPods.GROUP_LABEL, group);
    selected.withGracePeriod(0).delete();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (System.nanoTime() < deadline && !selected.list().getItems().isEmpty()) {
      sleep(200);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
