package io.hami.cmd.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.hami.cmd.cluster.kubelet.FakeKubelet;
import io.hami.kube.Informers;
import io.hami.model.Annotations;
import io.hami.nodeagent.NodeAgent;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.nvml.GpuInfo;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fake GPU node: the Node object, a node agent over fake GPUs and a fake kubelet that, like
 * kubelet's device manager, calls Allocate for each pod bound to the node, reports it Running, and
 * finishes the deletion of pods that are being deleted. A pod whose Allocate fails is rejected as
 * kubelet rejects it: phase Failed, reason {@code UnexpectedAdmissionError}. Like kubelet, it
 * retries its own API writes when the apiserver does not answer. The agent alone can be stopped and
 * started again ({@link #stopAgent()}, {@link #startAgent()}), as when its process dies and is
 * restarted.
 */
public final class GpuNode implements AutoCloseable {
  public static final String RESOURCE = "nvidia.com/gpu";
  private static final Logger log = LoggerFactory.getLogger(GpuNode.class);

  private final String name;
  private final KubernetesClient client;
  private final KubernetesClient agentClient;
  private static final Duration API_RETRY = Duration.ofMillis(500);

  /**
   * How often the node's pods are listed besides the watch, as kubelet's periodic sync does: a
   * watch that went quiet across an API server restart must not leave a bound pod unstarted or a
   * deleted one unfinished.
   */
  private static final Duration RELIST = Duration.ofSeconds(5);

  private final FakeKubelet kubelet;
  private final NodeAgentConfig config;
  private final List<GpuInfo> gpus;
  private @Nullable NodeAgent agent;
  private final SharedIndexInformer<Pod> informer;
  private final ScheduledExecutorService kubeletLoop;

  /** Pods admitted (Allocate answered or failed), by UID. */
  private final Set<String> admitted = ConcurrentHashMap.newKeySet();

  /** Pods reported Running, or Failed at admission, by UID. */
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  private final Map<String, Map<String, ContainerAllocateResponse>> allocations =
      new ConcurrentHashMap<>();
  private final Map<String, String> allocateErrors = new ConcurrentHashMap<>();

  private GpuNode(
      String name,
      KubernetesClient client,
      KubernetesClient agentClient,
      FakeKubelet kubelet,
      NodeAgentConfig config,
      List<GpuInfo> gpus,
      @Nullable NodeAgent agent,
      SharedIndexInformer<Pod> informer,
      ScheduledExecutorService kubeletLoop) {
    this.name = name;
    this.client = client;
    this.agentClient = agentClient;
    this.kubelet = kubelet;
    this.config = config;
    this.gpus = List.copyOf(gpus);
    this.agent = agent;
    this.informer = informer;
    this.kubeletLoop = kubeletLoop;
  }

  /** A GPU of {@code memoryMiB} MiB with a fresh UUID. */
  public static GpuInfo gpu(int index, long memoryMiB) {
    return new GpuInfo(
        index,
        "GPU-" + UUID.randomUUID(),
        "Tesla T4",
        memoryMiB,
        String.format("00000000:%02X:00.0", 0x18 + index),
        0,
        false);
  }

  /**
   * Registers node {@code name}, starts its kubelet and agent with {@code splitCount} vGPUs per
   * GPU, and waits until the node advertises every vGPU and its register annotation.
   */
  public static GpuNode start(
      KubernetesClient client, Path dir, String name, int splitCount, List<GpuInfo> gpus)
      throws Exception {
    return start(client, dir, FakeNode.named(name), splitCount, gpus);
  }

  /**
   * As {@link #start(KubernetesClient, Path, String, int, List)} for a node with its own labels.
   */
  public static GpuNode start(
      KubernetesClient client, Path dir, FakeNode fake, int splitCount, List<GpuInfo> gpus)
      throws Exception {
    fake.register(client);
    return startRegistered(client, client, dir, fake.name(), splitCount, gpus);
  }

  /**
   * As {@link #start(KubernetesClient, Path, String, int, List)} for node {@code name} that is
   * already registered, with the node agent on its own client (as with the agent's ServiceAccount
   * token, bound to a pod on the node) and the kubelet on {@code client}. The caller keeps
   * ownership of {@code agentClient}.
   */
  public static GpuNode startRegistered(
      KubernetesClient client,
      KubernetesClient agentClient,
      Path dir,
      String name,
      int splitCount,
      List<GpuInfo> gpus)
      throws Exception {
    Path deviceDir = deviceDir(dir, name);
    FakeKubelet kubelet = FakeKubelet.start(deviceDir, client, name);
    NodeAgentConfig config = agentConfig(dir, name, splitCount);
    NodeAgent agent;
    try {
      agent = startAgent(agentClient, config, gpus, kubelet);
    } catch (Exception e) {
      kubelet.close();
      throw e;
    }
    return withKubeletLoop(client, agentClient, kubelet, config, gpus, agent);
  }

  /**
   * Registers node {@code fake} and starts its kubelet only: the node agent runs elsewhere (as its
   * own process, serving {@link #deviceDir(Path, String)}), so {@link #startAgent()} and {@link
   * #stopAgent()} do nothing here. Returns without waiting for any device.
   */
  public static GpuNode startWithoutAgent(KubernetesClient client, Path dir, FakeNode fake)
      throws Exception {
    fake.register(client);
    String name = fake.name();
    FakeKubelet kubelet = FakeKubelet.start(deviceDir(dir, name), client, name);
    try {
      return withKubeletLoop(client, client, kubelet, agentConfig(dir, name, 1), List.of(), null);
    } catch (Exception e) {
      kubelet.close();
      throw e;
    }
  }

  /** The device-plugin directory of node {@code name}'s kubelet under {@code dir}. */
  public static Path deviceDir(Path dir, String name) {
    return dir.resolve(name).resolve("device-plugins");
  }

  private static NodeAgentConfig agentConfig(Path dir, String name, int splitCount) {
    return NodeAgentConfig.builder(name)
        .deviceDir(deviceDir(dir, name))
        .hookPath(dir.resolve(name).resolve("hook"))
        .splitCount(splitCount)
        .registerInterval(Duration.ofSeconds(2))
        .registerErrorInterval(Duration.ofSeconds(1))
        .build();
  }

  private static GpuNode withKubeletLoop(
      KubernetesClient client,
      KubernetesClient agentClient,
      FakeKubelet kubelet,
      NodeAgentConfig config,
      List<GpuInfo> gpus,
      @Nullable NodeAgent agent)
      throws Exception {
    String name = config.nodeName();
    ScheduledExecutorService loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "fake-kubelet-" + name);
              t.setDaemon(true);
              return t;
            });
    SharedIndexInformer<Pod> informer =
        client.pods().inAnyNamespace().withField("spec.nodeName", name).runnableInformer(0);
    GpuNode node =
        new GpuNode(name, client, agentClient, kubelet, config, gpus, agent, informer, loop);
    informer.addEventHandler(node.handler());
    informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    // Runs until the loop is shut down in close().
    var unusedRelist =
        loop.scheduleWithFixedDelay(
            node::relist, RELIST.toMillis(), RELIST.toMillis(), TimeUnit.MILLISECONDS);
    return node;
  }

  private static NodeAgent startAgent(
      KubernetesClient client, NodeAgentConfig config, List<GpuInfo> gpus, FakeKubelet kubelet)
      throws Exception {
    NodeAgent agent =
        NodeAgent.create(
            config,
            new FakeNvml(gpus),
            client,
            null,
            Clock.systemUTC(),
            new NodeAgent.Tuning(
                Duration.ofMillis(500),
                Duration.ofMillis(500),
                () -> UUID.randomUUID().toString(),
                NodeAgent::podsOnNode));
    try {
      agent.start(Duration.ofSeconds(60));
      int want = gpus.size() * config.splitCount();
      kubelet.awaitDevices(
          RESOURCE,
          d -> d.size() == want && d.stream().allMatch(x -> "Healthy".equals(x.getHealth())),
          Duration.ofSeconds(60));
    } catch (Exception e) {
      agent.stop(Duration.ofSeconds(10));
      throw e;
    }
    return agent;
  }

  /**
   * Stops the node agent only, as when its process dies: its device plugin leaves the kubelet,
   * which marks the devices Unhealthy (allocatable 0); the Node and its annotations stay.
   */
  public synchronized void stopAgent() {
    NodeAgent a = agent;
    agent = null;
    if (a != null) {
      a.stop(Duration.ofSeconds(10));
    }
  }

  /**
   * Starts a new node agent over the same GPUs and waits until the kubelet sees every device
   * healthy again.
   *
   * <p>Does nothing where the agent runs outside ({@link #startWithoutAgent}).
   *
   * @throws IllegalStateException if the agent is running
   */
  public synchronized void startAgent() throws Exception {
    if (agent != null) {
      throw new IllegalStateException("the node agent of " + name + " is running");
    }
    if (gpus.isEmpty()) {
      return; // the agent runs elsewhere
    }
    agent = startAgent(agentClient, config, gpus, kubelet);
  }

  public synchronized boolean agentRunning() {
    return agent != null;
  }

  public String name() {
    return name;
  }

  public FakeKubelet kubelet() {
    return kubelet;
  }

  /** Allocate responses by container name, for pods the kubelet allocated, by pod UID. */
  public Map<String, ContainerAllocateResponse> allocation(String podUid) {
    return allocations.getOrDefault(podUid, Map.of());
  }

  /** The UIDs of the pods whose Allocate succeeded on this node. */
  public Set<String> allocatedPods() {
    return Set.copyOf(allocations.keySet());
  }

  /** Allocate errors by pod UID. */
  public Map<String, String> allocateErrors() {
    return Map.copyOf(allocateErrors);
  }

  private ResourceEventHandler<Pod> handler() {
    return Informers.onLatest(pod -> kubeletLoop.execute(() -> sync(pod)));
  }

  /** Syncs the node's pods that are not started yet or are being deleted, as listed now. */
  private void relist() {
    try {
      for (Pod p :
          client.pods().inAnyNamespace().withField("spec.nodeName", name).list().getItems()) {
        if (p.getMetadata().getDeletionTimestamp() != null
            || !reported.contains(p.getMetadata().getUid())) {
          sync(p);
        }
      }
    } catch (RuntimeException e) {
      // The API server is away: the next relist tries again (and a throw would end them).
      log.debug("fake kubelet on {}: relist failed: {}", name, e.toString());
    }
  }

  /** What kubelet does when it sees a pod on its node. */
  private void sync(Pod pod) {
    String uid = pod.getMetadata().getUid();
    String ns = pod.getMetadata().getNamespace();
    String podName = pod.getMetadata().getName();
    try {
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        // Containers stop at once; kubelet then removes the object.
        client.pods().inNamespace(ns).withName(podName).withGracePeriod(0).delete();
        kubelet.release(uid);
        return;
      }
      if (reported.contains(uid)) {
        return;
      }
      if (admitted.add(uid) && requestsGpus(pod)) {
        try {
          allocations.put(uid, kubelet.allocatePod(RESOURCE, pod));
        } catch (RuntimeException e) {
          log.warn("fake kubelet on {}: pod {}/{}: {}", name, ns, podName, e.toString());
          allocateErrors.put(uid, String.valueOf(e.getMessage()));
        }
      }
      Pod current = client.pods().inNamespace(ns).withName(podName).get();
      if (current != null && uid.equals(current.getMetadata().getUid())) {
        String error = allocateErrors.get(uid);
        if (error == null) {
          PodLifecycle.markRunning(client, current);
        } else {
          // Kubelet rejects the pod at admission and carries on with the others.
          PodLifecycle.markAdmissionFailed(
              client, current, "Allocate failed due to " + error + ", which is unexpected");
        }
      }
      reported.add(uid);
    } catch (KubernetesClientException e) {
      if (kubeletLoop.isShutdown() || Thread.currentThread().isInterrupted()) {
        return; // the node is being closed
      }
      // The apiserver did not answer: like kubelet, try the write again later.
      log.info("fake kubelet on {}: pod {}/{}: {}; retrying", name, ns, podName, e.getMessage());
      try {
        // A retry that fails again logs and schedules the next one itself.
        var unused =
            kubeletLoop.schedule(() -> sync(pod), API_RETRY.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closed) {
        // The node is being closed.
      }
    }
  }

  private static boolean requestsGpus(Pod pod) {
    List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
    if (pod.getSpec().getInitContainers() != null) {
      all.addAll(pod.getSpec().getInitContainers());
    }
    return all.stream()
        .anyMatch(
            c ->
                c.getResources() != null
                    && c.getResources().getLimits() != null
                    && c.getResources().getLimits().containsKey(RESOURCE));
  }

  /** The node's annotations as the server has them. */
  public Map<String, String> annotations() {
    Map<String, String> a = client.nodes().withName(name).get().getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  public boolean locked() {
    return annotations().containsKey(Annotations.MUTEX_LOCK);
  }

  @Override
  public void close() throws Exception {
    informer.close();
    kubeletLoop.shutdownNow();
    stopAgent();
    kubelet.close();
    client.nodes().withName(name).delete();
  }
}
