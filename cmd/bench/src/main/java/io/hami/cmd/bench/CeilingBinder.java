package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.kube.AnnotationPatch;
import io.hami.kube.Bindings;
import io.hami.kube.PatchTargets;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API ceiling: binds each pod with the writes our scheduler makes on the happy path and nothing
 * else: the node lock (GET the node, merge patch with its resourceVersion) and the binding, which
 * carries the pod's device annotations and label (the API server copies them onto the pod). Nodes
 * are taken round-robin, skipping one whose lock is held; there is no filtering, scoring or cache.
 * In lock mode {@code scheduler} the binding alone: the scheduler keeps its one pod per node in
 * memory, and round-robin over the nodes comes back to a node long after its last pod was served.
 */
final class CeilingBinder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CeilingBinder.class);
  private static final Pod STOP = new Pod();

  private final KubernetesClient client;
  private final List<String> nodes;
  private final int gpusPerNode;
  private final BlockingQueue<Pod> queue = new LinkedBlockingQueue<>();
  private final ExecutorService workers;
  private final AtomicInteger cursor = new AtomicInteger();
  private final AtomicLong failures = new AtomicLong();
  private final int threads;
  private final boolean lockFree;

  /**
   * @param lockFree bind without the node lock, as lock mode {@code scheduler} does
   */
  CeilingBinder(
      KubernetesClient client, List<String> nodes, int gpusPerNode, int threads, boolean lockFree) {
    this.client = client;
    this.lockFree = lockFree;
    this.nodes = List.copyOf(nodes);
    this.gpusPerNode = gpusPerNode;
    this.threads = threads;
    this.workers = Executors.newFixedThreadPool(threads, Daemons.named("ceiling-binder"));
    for (int i = 0; i < threads; i++) {
      workers.execute(this::work);
    }
  }

  /** Queues a created pod for binding. */
  void offer(Pod pod) {
    queue.add(pod);
  }

  // STOP is a sentinel: Pod has value equality, so only identity tells it apart.
  @SuppressWarnings("ReferenceEquality")
  private void work() {
    while (true) {
      Pod pod;
      try {
        pod = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (pod == STOP) {
        return;
      }
      try {
        bind(pod);
      } catch (RuntimeException e) {
        if (failures.incrementAndGet() <= 5) {
          log.warn("ceiling bind of {} failed: {}", pod.getMetadata().getName(), e.toString());
        }
      }
    }
  }

  private void bind(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    for (int attempt = 0; attempt < nodes.size() * 2; attempt++) {
      String node = nodes.get(Math.floorMod(cursor.getAndIncrement(), nodes.size()));
      if (!lockFree && !lock(node, ns, name)) {
        continue;
      }
      client
          .bindings()
          .inNamespace(ns)
          .resource(
              Bindings.of(pod, node, annotations(pod, node), Map.of(Annotations.VGPU_NODE, node)))
          .create();
      return;
    }
    throw new IllegalStateException("every node stayed locked");
  }

  private boolean lock(String node, String ns, String pod) {
    Node n = client.nodes().withName(node).get();
    if (n == null) {
      return false;
    }
    Map<String, String> a = n.getMetadata().getAnnotations();
    if (a != null && a.containsKey(Annotations.MUTEX_LOCK)) {
      return false;
    }
    String value = NodeLock.of(OffsetDateTime.now(ZoneId.systemDefault()), ns, pod).encode();
    String patch =
        AnnotationPatch.of(Annotations.MUTEX_LOCK, value, n.getMetadata().getResourceVersion());
    try {
      client
          .nodes()
          .resource(PatchTargets.node(node))
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false;
      }
      throw e;
    }
  }

  private static String amount(Map<String, Quantity> limits, String name) {
    return Objects.requireNonNull(limits.get(name), name).getAmount();
  }

  /** The annotations our scheduler's binding carries, with made-up devices. */
  private Map<String, String> annotations(Pod pod, String node) {
    StringBuilder devices = new StringBuilder();
    int g = Math.floorMod(pod.getMetadata().getName().hashCode(), gpusPerNode);
    for (var c : pod.getSpec().getContainers()) {
      var limits = c.getResources().getLimits();
      // The workload gives every pod these three limits.
      int count = Integer.parseInt(amount(limits, "nvidia.com/gpu"));
      String mem = amount(limits, "nvidia.com/gpumem");
      String cores = amount(limits, "nvidia.com/gpucores");
      for (int i = 0; i < count; i++) {
        devices
            .append(String.format(Locale.ROOT, "GPU-%s-%02d", node, (g + i) % gpusPerNode))
            .append(",NVIDIA,")
            .append(mem)
            .append(',')
            .append(cores)
            .append(':');
      }
      devices.append(';');
    }
    String now = Long.toString(System.currentTimeMillis() / 1000);
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(Annotations.VGPU_NODE, node);
    annotations.put(Annotations.VGPU_TIME, now);
    annotations.put(Annotations.VGPU_DEVICES_TO_ALLOCATE, devices.toString());
    annotations.put(Annotations.VGPU_DEVICES_ALLOCATED, devices.toString());
    annotations.put(Annotations.BIND_PHASE, "allocating");
    annotations.put(Annotations.BIND_TIME, now);
    return annotations;
  }

  long failures() {
    return failures.get();
  }

  @Override
  public void close() {
    List<Pod> stops = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      stops.add(STOP);
    }
    queue.addAll(stops);
    workers.shutdown();
    try {
      if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
        workers.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      workers.shutdownNow();
    }
  }
}
