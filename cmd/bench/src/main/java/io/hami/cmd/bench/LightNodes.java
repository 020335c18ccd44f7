package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.hami.cmd.cluster.FakeNode;
import io.hami.kube.AnnotationPatch;
import io.hami.kube.Informers;
import io.hami.kube.PatchTargets;
import io.hami.model.Annotations;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.lock.NodeLock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lightweight GPU nodes in the manner of kwok: Node objects with a register annotation and a
 * handshake kept alive, no kubelet. For each pod the scheduler binds to one of them, it does what
 * the device plugin does after Allocate (protocol §4, §8): marks the pod {@code bind-phase=success}
 * with its devices served, then releases the node lock if the pod holds it.
 *
 * <p>It has its own client, so none of its requests count as the scheduler's. Thread-safe: the pod
 * informer hands work to a small pool, one task per bound pod.
 */
final class LightNodes implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LightNodes.class);
  static final String NODE_PREFIX = "bench-node-";
  static final String ZONE_LABEL = "topology.kubernetes.io/zone";
  private static final DateTimeFormatter HANDSHAKE_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private final KubernetesClient client;
  private final Workload.Nodes spec;
  private final String namespace;
  private final ExecutorService pool;
  private final ScheduledExecutorService timer;
  private final Set<String> names = ConcurrentHashMap.newKeySet();

  /**
   * Every node this created and has not deleted, registered or not: what {@link #deleteAll} owes.
   */
  private final Set<String> created = ConcurrentHashMap.newKeySet();

  private final Set<String> served = ConcurrentHashMap.newKeySet();
  private final AtomicLong released = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private @Nullable SharedIndexInformer<Pod> informer;

  LightNodes(KubernetesClient client, Workload.Nodes spec, String namespace, int threads) {
    this.client = client;
    this.spec = spec;
    this.namespace = namespace;
    this.pool = Executors.newFixedThreadPool(threads, Daemons.named("light-node"));
    this.timer = Executors.newSingleThreadScheduledExecutor(Daemons.named("light-node-handshake"));
  }

  static String nodeName(int i) {
    return NODE_PREFIX + i;
  }

  /**
   * The zone of a node: {@code zone-0..2} by its number, as scheduler_perf spreads its nodes over
   * three zones (topology spreading counts pods per zone).
   */
  static String zone(String nodeName) {
    String digits = nodeName.substring(nodeName.lastIndexOf('-') + 1);
    int i =
        digits.chars().allMatch(Character::isDigit) && !digits.isEmpty()
            ? Integer.parseInt(digits)
            : 0;
    return "zone-" + (i % 3);
  }

  /** Registers every node (in parallel), then starts serving bound pods and the handshake. */
  void start() throws Exception {
    List<Future<?>> created = new ArrayList<>();
    for (int i = 0; i < spec.count(); i++) {
      String name = nodeName(i);
      created.add(pool.submit(() -> register(name)));
    }
    for (Future<?> f : created) {
      f.get(5, TimeUnit.MINUTES);
    }
    SharedIndexInformer<Pod> inf = client.pods().inNamespace(namespace).runnableInformer(0);
    informer = inf;
    inf.addEventHandler(
        Informers.onLatest(this::maybeServe, pod -> served.remove(pod.getMetadata().getUid())));
    inf.start().toCompletableFuture().get(2, TimeUnit.MINUTES);
    long period = spec.handshakeInterval().toMillis();
    // Runs until close() shuts the timer down.
    var unused =
        timer.scheduleWithFixedDelay(
            this::refreshHandshakes, period, period, TimeUnit.MILLISECONDS);
  }

  /** Creates the node with its annotations, publishes its status and clears the not-ready taint. */
  void register(String name) {
    List<NodeDevice> devices = new ArrayList<>();
    for (int g = 0; g < spec.gpusPerNode(); g++) {
      devices.add(
          NodeDevice.of(
              String.format(Locale.ROOT, "GPU-%s-%02d", name, g),
              g,
              spec.splitCount(),
              spec.gpuMemoryMiB(),
              100,
              "NVIDIA-Tesla T4",
              0,
              NodeDevice.MODE_HAMI_CORE,
              true));
    }
    Map<String, Quantity> capacity =
        Map.of(
            "nvidia.com/gpu",
                new Quantity(Integer.toString(spec.gpusPerNode() * spec.splitCount())),
            "pods", new Quantity("1000"),
            "cpu", new Quantity("256"),
            "memory", new Quantity("2Ti"));
    Node node =
        new NodeBuilder(FakeNode.named(name).label(ZONE_LABEL, zone(name)).object())
            .editMetadata()
            .withAnnotations(
                Map.of(
                    Annotations.NODE_NVIDIA_REGISTER, NodeDeviceJson.encode(devices),
                    Annotations.NODE_HANDSHAKE, handshake(),
                    // Served pods are found by bind-phase, lock or not, as our agent does.
                    Annotations.NODE_LOCK_FREE, "true"))
            .endMetadata()
            .build();
    Node made = client.nodes().resource(node).create();
    created.add(name);
    Node withStatus = publishStatus(made, status(name, capacity));
    // Admission taints every new node not-ready; the node lifecycle controller would clear it.
    client
        .nodes()
        .resource(withStatus)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"taints\":null}}");
    names.add(name);
  }

  /** How many times a status update that conflicts is tried again. */
  static final int STATUS_ATTEMPTS = 8;

  /**
   * Writes {@code status} to the node. Other components of the HAMi protocol (a device plugin's
   * register annotations, a scheduler's lock) may change the node between its create and this
   * update: a conflict (409) re-reads the node and tries again, as a kubelet does.
   */
  Node publishStatus(Node node, NodeStatus status) {
    Node current = node;
    for (int attempt = 1; ; attempt++) {
      current.setStatus(status);
      try {
        return client.nodes().resource(current).updateStatus();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= STATUS_ATTEMPTS) {
          throw e;
        }
        log.debug("node status conflict node={} attempt={}", node.getMetadata().getName(), attempt);
        Node latest = client.nodes().withName(node.getMetadata().getName()).get();
        if (latest == null) {
          throw e;
        }
        current = latest;
      }
    }
  }

  private static NodeStatus status(String name, Map<String, Quantity> capacity) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    return new NodeStatusBuilder()
        .withCapacity(capacity)
        .withAllocatable(capacity)
        .withConditions(
            new NodeConditionBuilder()
                .withType("Ready")
                .withStatus("True")
                .withReason("KubeletReady")
                .withMessage("light node of hami bench cluster")
                .withLastHeartbeatTime(now)
                .withLastTransitionTime(now)
                .build())
        .withAddresses(
            new NodeAddressBuilder().withType("InternalIP").withAddress("127.0.0.1").build())
        .withNewNodeInfo()
        .withArchitecture("amd64")
        .withOperatingSystem("linux")
        .withKubeletVersion("v0.0.0-hami-bench")
        .withContainerRuntimeVersion("fake://0")
        .withKernelVersion("")
        .withOsImage("fake")
        .withMachineID(name)
        .withSystemUUID(name)
        .withBootID(name)
        .withKubeProxyVersion("")
        .endNodeInfo()
        .build();
  }

  /** Deletes a node and, as the pod garbage collector would, the pods bound to it. */
  void delete(String name) {
    names.remove(name);
    client.nodes().withName(name).delete();
    created.remove(name);
    for (Pod p : Objects.requireNonNull(informer, "not started").getStore().list()) {
      if (name.equals(p.getSpec().getNodeName())) {
        client
            .pods()
            .inNamespace(namespace)
            .withName(p.getMetadata().getName())
            .withGracePeriod(0)
            .delete();
      }
    }
  }

  private static String handshake() {
    return "Reported_" + LocalDateTime.now(ZoneId.systemDefault()).format(HANDSHAKE_TIME);
  }

  private void refreshHandshakes() {
    String patch = AnnotationPatch.of(Annotations.NODE_HANDSHAKE, handshake(), null);
    for (String name : List.copyOf(names)) {
      try {
        client
            .nodes()
            .resource(PatchTargets.node(name))
            .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      } catch (KubernetesClientException e) {
        log.debug("handshake refresh failed node={} error={}", name, e.getMessage());
      }
    }
  }

  private void maybeServe(Pod pod) {
    String node = pod.getSpec().getNodeName();
    Map<String, String> a = pod.getMetadata().getAnnotations();
    if (node == null
        || a == null
        || !names.contains(node)
        || !"allocating".equals(a.get(Annotations.BIND_PHASE))) {
      return;
    }
    if (served.add(pod.getMetadata().getUid())) {
      pool.execute(() -> serve(pod, node));
    }
  }

  /** What the device plugin does once Allocate has served the pod. */
  private void serve(Pod pod, String node) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    try {
      int containers = pod.getSpec().getContainers().size();
      String patch =
          AnnotationPatch.of(
              Map.of(
                  Annotations.BIND_PHASE,
                  "success",
                  Annotations.VGPU_DEVICES_TO_ALLOCATE,
                  ";".repeat(containers)),
              null);
      client
          .pods()
          .resource(PatchTargets.pod(pod))
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      releaseLock(node, ns, name);
    } catch (KubernetesClientException e) {
      errors.incrementAndGet();
      log.warn("light node {} could not serve pod {}/{}: {}", node, ns, name, e.getMessage());
    }
  }

  private void releaseLock(String node, String ns, String pod) {
    for (int attempt = 0; attempt < 5; attempt++) {
      Node n = client.nodes().withName(node).get();
      if (n == null) {
        return;
      }
      Map<String, String> a = n.getMetadata().getAnnotations();
      String lock = a == null ? null : a.get(Annotations.MUTEX_LOCK);
      if (lock == null || !NodeLock.releasableBy(lock, ns, pod)) {
        return;
      }
      String patch =
          AnnotationPatch.of(Annotations.MUTEX_LOCK, null, n.getMetadata().getResourceVersion());
      try {
        client
            .nodes()
            .resource(PatchTargets.node(node))
            .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        released.incrementAndGet();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
  }

  /**
   * Deletes every node this created, registered or not (the pods are deleted by the caller). Call
   * it after {@link #close}, so that no registration still in flight creates one afterwards.
   * Idempotent; a node already gone counts as deleted.
   */
  void deleteAll() {
    for (String name : List.copyOf(created)) {
      names.remove(name);
      try {
        client.nodes().withName(name).delete();
        created.remove(name);
      } catch (KubernetesClientException e) {
        log.warn("could not delete node {}: {}", name, e.getMessage());
      }
    }
  }

  /** Nodes created and not yet deleted (for tests). */
  Set<String> created() {
    return Set.copyOf(created);
  }

  /** Node names now registered. */
  Set<String> names() {
    return Set.copyOf(names);
  }

  long locksReleased() {
    return released.get();
  }

  long errors() {
    return errors.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    if (informer != null) {
      informer.close();
    }
    pool.shutdownNow();
    try {
      // A registration in flight finishes its create, so deleteAll sees the node.
      if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn("light node threads still running after 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
