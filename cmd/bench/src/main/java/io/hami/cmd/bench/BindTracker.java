package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.hami.kube.Informers;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Records, per pod of one group, when the client started creating it and when a watch first saw it
 * bound ({@code spec.nodeName} set). Pods deleted on purpose (churn) leave the expected set.
 * Thread-safe.
 */
final class BindTracker implements AutoCloseable {
  private final String group;
  private final LongSupplier nanoTime;
  private final Map<String, Long> created = new ConcurrentHashMap<>();
  private final Map<String, Long> bound = new ConcurrentHashMap<>();
  private final Map<String, String> nodes = new ConcurrentHashMap<>();
  private final Set<String> deleted = ConcurrentHashMap.newKeySet();
  private volatile long releasedAt = Long.MIN_VALUE;
  private final SharedIndexInformer<Pod> informer;

  BindTracker(KubernetesClient client, String namespace, String group, LongSupplier nanoTime) {
    this.group = group;
    this.nanoTime = nanoTime;
    this.informer =
        client
            .pods()
            .inNamespace(namespace)
            .withLabel(BenchPods.GROUP_LABEL, group)
            .runnableInformer(0);
    informer.addEventHandler(Informers.onLatest(this::seen));
  }

  void start() throws Exception {
    informer.start().toCompletableFuture().get(2, TimeUnit.MINUTES);
  }

  private void seen(Pod pod) {
    String node = pod.getSpec().getNodeName();
    if (node != null && !node.isEmpty()) {
      long now = nanoTime.getAsLong();
      String name = pod.getMetadata().getName();
      if (bound.putIfAbsent(name, now) == null) {
        nodes.put(name, node);
      }
    }
  }

  /** Called just before the create request of {@code name} is sent. */
  void creating(String name) {
    created.put(name, nanoTime.getAsLong());
  }

  /** The create of {@code name} failed: it is not expected to bind. */
  void createFailed(String name) {
    created.remove(name);
  }

  void deletedOnPurpose(String name) {
    deleted.add(name);
  }

  String group() {
    return group;
  }

  int createdCount() {
    return created.size();
  }

  /** Pods created and not deleted on purpose that are not bound yet. */
  int pending() {
    int n = 0;
    for (String name : created.keySet()) {
      if (!bound.containsKey(name) && !deleted.contains(name)) {
        n++;
      }
    }
    return n;
  }

  int boundCount() {
    int n = 0;
    for (String name : bound.keySet()) {
      if (created.containsKey(name)) {
        n++;
      }
    }
    return n;
  }

  /** The progress line a phase prints while it waits: created, bound and pending counts. */
  String progress() {
    return "created " + createdCount() + ", bound " + boundCount() + ", pending " + pending();
  }

  /** Names of bound pods not deleted on purpose, for churn to pick from. */
  List<String> boundLive() {
    return bound.keySet().stream().filter(n -> !deleted.contains(n)).toList();
  }

  @Nullable String nodeOf(String name) {
    return nodes.get(name);
  }

  /** Bind times of the pods this run created, in nanoseconds. */
  long[] bindTimes() {
    return bound.entrySet().stream()
        .filter(e -> created.containsKey(e.getKey()))
        .mapToLong(Map.Entry::getValue)
        .toArray();
  }

  /**
   * The pods were held back until {@code at} (their scheduler paused while they were created, for a
   * backlog measure): the phase and each pod's latency count from then.
   */
  void released(long at) {
    releasedAt = at;
  }

  /** Create-to-bind latencies in milliseconds, from the release for pods created before it. */
  double[] latenciesMs() {
    long from = releasedAt;
    return bound.entrySet().stream()
        .filter(e -> created.containsKey(e.getKey()))
        .mapToDouble(
            e -> latencyMs(Objects.requireNonNull(created.get(e.getKey())), e.getValue(), from))
        .toArray();
  }

  /** A pod's wait from its create, or from the release when it was created before that. */
  static double latencyMs(long created, long bound, long released) {
    return (bound - Math.max(created, released)) / 1e6;
  }

  /** When the phase's clock starts: the first create, or the release when pods were held back. */
  long measuredFrom() {
    long first =
        created.values().stream().mapToLong(Long::longValue).min().orElse(nanoTime.getAsLong());
    return Math.max(first, releasedAt);
  }

  /**
   * Pods created per second, from the first create request sent to the last ({@link Stats#rate}).
   */
  double createdPerSecond() {
    return Stats.rate(created.values().stream().mapToLong(Long::longValue).toArray());
  }

  @Override
  public void close() {
    informer.close();
  }
}
