package io.hami.e2e.scenarios;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.model.Annotations;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The pod stream of {@link ChaosE2E} and what it saw of it: GPU pods created at a steady rate, each
 * create retried through API outages, and deleted once running (served) or rejected, so that
 * capacity frees; while pods are created, also when older than a time to live, as impatient users
 * do, so that the backlog stays bounded. Every bind seen is recorded.
 */
final class ChaosWorkload implements AutoCloseable {
  /** The last thing the workload saw of a pod. */
  record Seen(
      String name,
      @Nullable String node,
      @Nullable String bindPhase,
      @Nullable String phase,
      @Nullable String reason) {}

  private final KubernetesClient client;
  private final String ns;
  private final int rate;
  private final Duration ttl;
  private final ExecutorService creators = Executors.newFixedThreadPool(8);
  private final AtomicBoolean creating = new AtomicBoolean(true);
  private final AtomicBoolean deleting = new AtomicBoolean(true);
  private @Nullable Thread producer;
  private @Nullable Thread deleter;

  /** By pod UID. */
  final Map<String, Seen> seen = new ConcurrentHashMap<>();

  /** The nodes each pod was seen bound to, by pod UID. */
  final Map<String, Set<String>> boundTo = new ConcurrentHashMap<>();

  /** When this workload deleted each pod, by name. */
  final Map<String, Instant> deletedAt = new ConcurrentHashMap<>();

  /** Deleted before they ran: an Allocate that comes after the last look cannot be checked. */
  final Set<String> deletedEarly = ConcurrentHashMap.newKeySet();

  final AtomicInteger created = new AtomicInteger();
  final AtomicInteger createRetries = new AtomicInteger();
  final AtomicInteger notCreated = new AtomicInteger();
  final AtomicInteger deleted = new AtomicInteger();

  ChaosWorkload(KubernetesClient client, String ns, int rate, Duration ttl) {
    this.client = client;
    this.ns = ns;
    this.rate = rate;
    this.ttl = ttl;
  }

  /** Starts creating and deleting; {@code startNanos} is the start of the schedule. */
  void start(long startNanos) {
    Thread p = new Thread(() -> produce(startNanos), "chaos-producer");
    Thread d = new Thread(this::deleteLoop, "chaos-deleter");
    producer = p;
    deleter = d;
    p.start();
    d.start();
  }

  /** Whether pods are still being deleted (until {@link #stopDeleting}). */
  boolean running() {
    return deleting.get();
  }

  /** Stops creating; waits for the creates under way (retried ones give up). */
  void stopCreating() throws InterruptedException {
    creating.set(false);
    if (producer != null) {
      producer.join();
    }
    creators.shutdown();
    creators.awaitTermination(60, TimeUnit.SECONDS);
  }

  void stopDeleting() throws InterruptedException {
    deleting.set(false);
    if (deleter != null) {
      deleter.join();
    }
  }

  @Override
  public void close() {
    creating.set(false);
    deleting.set(false);
    creators.shutdownNow();
  }

  private void produce(long start) {
    long period = 1_000_000_000L / rate;
    for (int i = 0; creating.get(); i++) {
      String name = String.format("c-%05d", i);
      creators.execute(() -> create(name));
      long wait = start + (i + 1) * period - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private void create(String name) {
    Pod pod = GpuPods.named(name).gpu(1, 1000, 5).build();
    while (true) {
      try {
        client.pods().inNamespace(ns).resource(pod).create();
        created.incrementAndGet();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409) {
          created.incrementAndGet(); // an earlier try whose answer was lost created it
          return;
        }
        if (!creating.get()) {
          notCreated.incrementAndGet();
          return;
        }
        createRetries.incrementAndGet();
        sleepQuietly(250);
      }
    }
  }

  private void deleteLoop() {
    while (deleting.get()) {
      try {
        for (Pod p : client.pods().inNamespace(ns).list().getItems()) {
          Seen s = observe(p);
          boolean running = "Running".equals(s.phase());
          boolean failed = "Failed".equals(s.phase());
          boolean expired =
              creating.get()
                  && p.getMetadata().getCreationTimestamp() != null
                  && Instant.parse(p.getMetadata().getCreationTimestamp())
                      .isBefore(Instant.now().minus(ttl));
          if ((running || failed || expired) && p.getMetadata().getDeletionTimestamp() == null) {
            client.pods().inNamespace(ns).resource(p).delete();
            if (!running && !failed) {
              deletedEarly.add(p.getMetadata().getUid());
            }
            deletedAt.put(s.name(), Instant.now());
            deleted.incrementAndGet();
          }
        }
      } catch (KubernetesClientException e) {
        // The apiserver is down; look again later.
      }
      sleepQuietly(300);
    }
  }

  /** Records what {@code p} shows now (and its node, if bound). */
  Seen observe(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    String node = p.getSpec().getNodeName();
    Seen s =
        new Seen(
            p.getMetadata().getName(),
            node,
            a == null ? null : a.get(Annotations.BIND_PHASE),
            p.getStatus() == null ? null : p.getStatus().getPhase(),
            p.getStatus() == null ? null : p.getStatus().getReason());
    String uid = p.getMetadata().getUid();
    seen.put(uid, s);
    if (node != null) {
      boundTo.computeIfAbsent(uid, k -> ConcurrentHashMap.newKeySet()).add(node);
    }
    return s;
  }

  static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
