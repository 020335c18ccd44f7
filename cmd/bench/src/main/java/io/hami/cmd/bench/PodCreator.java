package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates pods at a controlled rate from a pool of clients: pod {@code i} is sent no earlier than
 * {@code start + i / qps}, by whichever client is free, so a slow request delays no other.
 */
final class PodCreator {
  private static final Logger log = LoggerFactory.getLogger(PodCreator.class);

  private final KubernetesClient client;
  private final String namespace;
  private final String schedulerName;
  private final AtomicLong failures = new AtomicLong();

  PodCreator(KubernetesClient client, String namespace, String schedulerName) {
    this.client = client;
    this.namespace = namespace;
    this.schedulerName = schedulerName;
  }

  /**
   * Creates one pod per shape, named {@code <group>-<i>}, and returns when all were sent.
   *
   * @param created called with each pod as the server returned it
   */
  void createAll(
      List<Workload.Shape> shapes,
      String group,
      double qps,
      int clients,
      BindTracker tracker,
      Consumer<Pod> created)
      throws InterruptedException {
    createAll(
        shapes.size(),
        i -> BenchPods.pod(namespace, group + "-" + i, group, shapes.get(i), schedulerName),
        new Rate(qps, clients),
        tracker,
        created);
  }

  /** A creation rate and the clients that keep it. */
  record Rate(double qps, int clients) {}

  /**
   * Creates {@code count} pods made by {@code pods} (each in its own namespace) and returns when
   * all were sent.
   *
   * @param created called with each pod as the server returned it
   */
  void createAll(
      int count, IntFunction<Pod> pods, Rate rate, BindTracker tracker, Consumer<Pod> created)
      throws InterruptedException {
    int clients = rate.clients();
    double qps = rate.qps();
    ExecutorService pool = Executors.newFixedThreadPool(clients, Daemons.named("pod-creator"));
    AtomicInteger next = new AtomicInteger();
    long start = System.nanoTime();
    long intervalNanos = (long) (1e9 / qps);
    for (int t = 0; t < clients; t++) {
      pool.execute(
          () -> {
            while (!Thread.currentThread().isInterrupted()) {
              int i = next.getAndIncrement();
              if (i >= count) {
                return;
              }
              long wait = start + i * intervalNanos - System.nanoTime();
              if (wait > 0) {
                try {
                  TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                  return;
                }
              }
              create(pods.apply(i), tracker, created);
            }
          });
    }
    pool.shutdown();
    if (!pool.awaitTermination(1, TimeUnit.HOURS)) {
      pool.shutdownNow();
    }
  }

  /** Creates one pod now. */
  void createOne(
      String name, String group, Workload.Shape shape, BindTracker tracker, Consumer<Pod> created) {
    create(BenchPods.pod(namespace, name, group, shape, schedulerName), tracker, created);
  }

  private void create(Pod pod, BindTracker tracker, Consumer<Pod> created) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    tracker.creating(name);
    try {
      created.accept(client.pods().inNamespace(ns).resource(pod).create());
    } catch (KubernetesClientException e) {
      tracker.createFailed(name);
      if (failures.incrementAndGet() <= 5) {
        log.warn("creating pod {}/{} failed: {}", ns, name, e.getMessage());
      }
    }
  }

  long failures() {
    return failures.get();
  }
}
