package io.hami.nodeagent.deviceplugin;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.kube.AnnotationPatch;
import io.hami.kube.PatchTargets;
import io.hami.kube.WriteRetry;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.model.Decoded;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.MigAllocationJson;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.vendor.VendorKeys;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.config.OperatingMode;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.hami.nodeagent.nvml.MigInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves kubelet's Allocate from the scheduler's pod annotations (spec §7.5). Calls are serialised:
 * the node lock admits one binding pod at a time and kubelet allocates its containers one call
 * after another. In MIG mode each device of a container is a dynamic MIG instance (spec §8.3),
 * created through {@link MigInstances} and recorded back in {@code hami.io/vgpu-mig-allocations}.
 */
public final class Allocator {
  private static final Logger log = LoggerFactory.getLogger(Allocator.class);

  /** How many times a conflicting lock release is tried. */
  static final int RELEASE_ATTEMPTS = 5;

  /** How long a lock release may retry in all. */
  static final Duration RELEASE_BUDGET = Duration.ofSeconds(10);

  private final KubernetesClient client;
  private final NodeAgentConfig config;
  private final Supplier<String> cacheNames;
  private final Supplier<List<Pod>> podsOnNode;
  private final @Nullable MigInstances mig;

  /** The pods (by UID) whose Allocate runs now. */
  @GuardedBy("this")
  private final Set<String> allocating = new HashSet<>();

  /**
   * @param cacheNames names the shared-region cache file of each container (random UUIDs in
   *     production)
   * @param podsOnNode lists the pods bound to this node (a field-selector list in production)
   */
  public Allocator(
      KubernetesClient client,
      NodeAgentConfig config,
      Supplier<String> cacheNames,
      Supplier<List<Pod>> podsOnNode) {
    this(client, config, cacheNames, podsOnNode, null);
  }

  /**
   * @param mig creates the MIG instances; required in MIG mode
   */
  public Allocator(
      KubernetesClient client,
      NodeAgentConfig config,
      Supplier<String> cacheNames,
      Supplier<List<Pod>> podsOnNode,
      @Nullable MigInstances mig) {
    this.client = client;
    this.config = config;
    this.cacheNames = cacheNames;
    this.podsOnNode = podsOnNode;
    this.mig = mig;
  }

  /**
   * Serves kubelet's Allocate for the pod the scheduler is binding here. No lock is held across the
   * API calls: a pod is claimed for the duration of its Allocate, and a concurrent Allocate that
   * finds the same pod is refused without touching the pod.
   */
  public AllocateResponse allocate(AllocateRequest request) throws AllocationException {
    Pod pod = findPendingPod();
    String who = name(pod);
    String uid = pod.getMetadata().getUid() == null ? who : pod.getMetadata().getUid();
    synchronized (this) {
      if (!allocating.add(uid)) {
        throw new AllocationException("pod " + who + " is already being allocated");
      }
    }
    try {
      AllocateResponse response = allocateFor(pod, request);
      log.info("allocated pod={} containers={}", who, request.getContainerRequestsCount());
      return response;
    } catch (AllocationException | KubernetesClientException e) {
      log.warn("allocation failed pod={} cause={}", who, e.getMessage());
      markFailed(pod);
      throw new AllocationException("allocate for pod " + who + " failed: " + e.getMessage(), e);
    } finally {
      synchronized (this) {
        allocating.remove(uid);
      }
    }
  }

  private AllocateResponse allocateFor(Pod pod, AllocateRequest request)
      throws AllocationException {
    String raw = annotation(pod, Annotations.VGPU_DEVICES_TO_ALLOCATE);
    if (raw == null) {
      throw new AllocationException(
          "annotation " + Annotations.VGPU_DEVICES_TO_ALLOCATE + " is missing");
    }
    var decoded = PodDevicesCodec.decode(raw);
    if (decoded.failure().isPresent()) {
      throw new AllocationException(
          "malformed annotation "
              + Annotations.VGPU_DEVICES_TO_ALLOCATE
              + "='"
              + raw
              + "': "
              + decoded.failure().get());
    }
    List<List<ContainerDevice>> entries = decoded.orElse(PodDevices.empty()).containers();
    MigRun migRun = config.mode() == OperatingMode.MIG ? new MigRun(pod) : null;
    try {
      return serve(pod, request, raw, entries, migRun);
    } catch (AllocationException | RuntimeException e) {
      if (migRun != null) {
        // Instances created for a failed Allocate would hold placements no pod owns.
        migRun.rollback();
      }
      throw e;
    }
  }

  private AllocateResponse serve(
      Pod pod,
      AllocateRequest request,
      String raw,
      List<List<ContainerDevice>> entries,
      @Nullable MigRun migRun)
      throws AllocationException {
    List<Container> containers = containers(pod);
    boolean[] served = new boolean[entries.size()];
    AllocateResponse.Builder response = AllocateResponse.newBuilder();
    for (ContainerAllocateRequest creq : request.getContainerRequestsList()) {
      List<String> ids = creq.getDevicesIdsList();
      if (ids.stream().anyMatch(id -> id.contains("MIG"))) {
        response.addContainerResponses(ContainerResponses.passthrough(ids));
        continue;
      }
      int k = nextEntry(entries, served);
      if (k < 0) {
        throw new AllocationException(
            "no container entry with devices left in "
                + Annotations.VGPU_DEVICES_TO_ALLOCATE
                + "='"
                + raw
                + "'");
      }
      List<ContainerDevice> devices = entries.get(k);
      if (devices.size() != ids.size()) {
        throw new AllocationException(
            "device number not matched: container entry "
                + k
                + " has "
                + devices.size()
                + " device(s), kubelet asked for "
                + ids.size());
      }
      if (k >= containers.size()) {
        throw new AllocationException(
            "container entry " + k + " has no container: the pod has " + containers.size());
      }
      served[k] = true;
      if (migRun != null) {
        response.addContainerResponses(
            ContainerResponses.passthrough(migRun.serve(k, containers.get(k), devices)));
      } else {
        response.addContainerResponses(
            ContainerResponses.build(config, pod, containers.get(k), devices, cacheNames.get()));
      }
    }
    Map<String, @Nullable String> patch = new LinkedHashMap<>();
    patch.put(Annotations.VGPU_DEVICES_TO_ALLOCATE, emptied(raw, served));
    if (migRun != null) {
      patch.put(Annotations.VGPU_MIG_ALLOCATIONS, MigAllocationJson.encode(migRun.allocations));
    }
    patchPod(pod, patch);
    Pod now =
        client
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .get();
    String left = now == null ? null : annotation(now, Annotations.VGPU_DEVICES_TO_ALLOCATE);
    if (left == null || !left.contains(VendorKeys.NVIDIA.commonWord())) {
      patchPod(pod, Map.of(Annotations.BIND_PHASE, BindPhase.SUCCESS.wire()));
      releaseLock(pod);
      log.info("pod fully allocated pod={}", name(pod));
    }
    return response.build();
  }

  /** The MIG instances of one Allocate: what was created, so a failure can undo it. */
  private final class MigRun {
    private final Pod pod;
    final List<MigAllocation> allocations;
    private final List<Map.Entry<String, MigInstance>> created = new ArrayList<>();
    private @Nullable Map<String, String> claimed;

    MigRun(Pod pod) throws AllocationException {
      this.pod = pod;
      if (mig == null) {
        throw new IllegalStateException("MIG mode without MIG instance management");
      }
      String raw = annotation(pod, Annotations.VGPU_MIG_ALLOCATIONS);
      if (raw == null) {
        throw new AllocationException(
            "MIG mode: annotation " + Annotations.VGPU_MIG_ALLOCATIONS + " is missing");
      }
      Decoded<List<MigAllocation>> d = MigAllocationJson.decode(raw);
      if (d instanceof Decoded.Err<List<MigAllocation>> e) {
        throw new AllocationException(
            "malformed annotation "
                + Annotations.VGPU_MIG_ALLOCATIONS
                + "='"
                + raw
                + "': "
                + e.error());
      }
      this.allocations = new ArrayList<>(d.orElse(List.of()));
    }

    /** Creates (or reuses) the instances of container entry {@code k}; returns their UUIDs. */
    List<String> serve(int k, Container container, List<ContainerDevice> devices)
        throws AllocationException {
      MigInstances instances = Objects.requireNonNull(mig);
      String who = "pod " + name(pod) + " container " + container.getName();
      List<String> uuids = new ArrayList<>(devices.size());
      for (int i = 0; i < devices.size(); i++) {
        MigAllocation a = MigInstances.find(allocations, k, i);
        if (a == null) {
          throw new AllocationException(
              who
                  + ": no entry for container "
                  + k
                  + " device "
                  + i
                  + " in "
                  + Annotations.VGPU_MIG_ALLOCATIONS);
        }
        if (!a.gpuUuid().equals(devices.get(i).uuid())) {
          throw new AllocationException(
              who
                  + ": "
                  + Annotations.VGPU_MIG_ALLOCATIONS
                  + " puts device "
                  + i
                  + " on GPU "
                  + a.gpuUuid()
                  + " but "
                  + Annotations.VGPU_DEVICES_TO_ALLOCATE
                  + " on "
                  + devices.get(i).uuid());
        }
        MigInstances.Ensured e = instances.ensure(who, a, claimed());
        if (e.created()) {
          created.add(Map.entry(a.gpuUuid(), e.instance()));
        }
        allocations.set(allocations.indexOf(a), MigInstances.withRuntime(a, e.instance()));
        uuids.add(e.instance().migUuid());
      }
      return uuids;
    }

    /** MIG UUIDs other pods on the node hold, with the pod's name. */
    private Map<String, String> claimed() {
      if (claimed == null) {
        Map<String, String> out = new HashMap<>();
        for (Pod p : podsOnNode.get()) {
          if (name(p).equals(name(pod))) {
            continue;
          }
          for (MigAllocation a : MigInstances.allocations(p)) {
            a.runtime().ifPresent(r -> out.put(r.migUuid(), name(p)));
          }
        }
        claimed = out;
      }
      return claimed;
    }

    void rollback() {
      MigInstances instances = Objects.requireNonNull(mig);
      for (Map.Entry<String, MigInstance> c : created) {
        instances.release(c.getKey(), c.getValue());
      }
      created.clear();
    }
  }

  /** The index of the first non-empty entry not yet served, or -1. */
  private static int nextEntry(List<List<ContainerDevice>> entries, boolean[] served) {
    for (int i = 0; i < entries.size(); i++) {
      if (!served[i] && !entries.get(i).isEmpty()) {
        return i;
      }
    }
    return -1;
  }

  /** The annotation with the served container entries emptied, every other byte kept. */
  static String emptied(String raw, boolean[] served) {
    String[] pieces = raw.split(";", -1);
    for (int i = 0; i < pieces.length && i < served.length; i++) {
      if (served[i]) {
        pieces[i] = "";
      }
    }
    return String.join(";", pieces);
  }

  /** Init containers first, then app containers: the order of the annotation's entries. */
  private static List<Container> containers(Pod pod) {
    List<Container> out = new ArrayList<>();
    if (pod.getSpec() != null) {
      if (pod.getSpec().getInitContainers() != null) {
        out.addAll(pod.getSpec().getInitContainers());
      }
      if (pod.getSpec().getContainers() != null) {
        out.addAll(pod.getSpec().getContainers());
      }
    }
    return out;
  }

  /**
   * The pod being bound to this node: the node lock's holder when it is pending here, else the
   * oldest pending pod found by listing the node's pods.
   */
  Pod findPendingPod() throws AllocationException {
    Node node = client.nodes().withName(config.nodeName()).get();
    String lock = node == null ? null : annotation(node, Annotations.MUTEX_LOCK);
    if (lock != null) {
      var decoded = NodeLock.decode(lock);
      if (decoded.failure().isPresent()) {
        throw new AllocationException(
            "node lock "
                + Annotations.MUTEX_LOCK
                + "='"
                + lock
                + "' on node "
                + config.nodeName()
                + " does not parse: "
                + decoded.failure().get());
      }
      NodeLock held = decoded.toOptional().orElseThrow();
      // A time-only (legacy) lock names no pod: fall through to the scan.
      if (!held.isTimeOnly()) {
        Pod holder = client.pods().inNamespace(held.namespace()).withName(held.name()).get();
        if (holder != null && notPendingReason(holder) == null) {
          return holder;
        }
        log.info(
            "node lock holder {}/{} is not pending here ({}); scanning the node's pods",
            held.namespace(),
            held.name(),
            holder == null ? "not found" : notPendingReason(holder));
      }
    }
    return podsOnNode.get().stream()
        .filter(p -> p.getSpec() != null && config.nodeName().equals(p.getSpec().getNodeName()))
        .filter(p -> notPendingReason(p) == null)
        .min(
            Comparator.<Pod, Boolean>comparing(
                    p -> !BindPhase.ALLOCATING.wire().equals(annotation(p, Annotations.BIND_PHASE)))
                .thenComparing(p -> bindTime(p))
                .thenComparing(Allocator::name))
        .orElseThrow(
            () -> new AllocationException("no binding pod found on node " + config.nodeName()));
  }

  /** Null when the pod waits for its devices on this node, else why not. */
  private @Nullable String notPendingReason(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if (!"Pending".equals(phase)) {
      return "phase " + phase;
    }
    if (annotation(pod, Annotations.BIND_TIME) == null) {
      return "no " + Annotations.BIND_TIME;
    }
    String bindPhase = annotation(pod, Annotations.BIND_PHASE);
    if (!BindPhase.ALLOCATING.wire().equals(bindPhase)
        && !BindPhase.SUCCESS.wire().equals(bindPhase)) {
      return Annotations.BIND_PHASE + "=" + bindPhase;
    }
    if (!config.nodeName().equals(annotation(pod, Annotations.VGPU_NODE))) {
      return Annotations.VGPU_NODE + "=" + annotation(pod, Annotations.VGPU_NODE);
    }
    return null;
  }

  private static long bindTime(Pod pod) {
    try {
      String v = annotation(pod, Annotations.BIND_TIME);
      return v == null ? Long.MAX_VALUE : Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }

  /** Sets bind-phase=failed and releases the lock; each step is tried on its own. */
  private void markFailed(Pod pod) {
    try {
      patchPod(pod, Map.of(Annotations.BIND_PHASE, BindPhase.FAILED.wire()));
    } catch (KubernetesClientException e) {
      log.error("cannot set {}=failed pod={}", Annotations.BIND_PHASE, name(pod), e);
    }
    try {
      releaseLock(pod);
    } catch (KubernetesClientException e) {
      log.error("cannot release the node lock pod={}", name(pod), e);
    }
  }

  /**
   * Removes the node lock if this pod holds it (or it names no pod). The patch carries the
   * resourceVersion, so a lock taken meanwhile is not removed; conflicts are retried, up to {@link
   * #RELEASE_ATTEMPTS} times within {@link #RELEASE_BUDGET}. An interrupt ends the retries at once
   * (the last failure is thrown, the interrupt flag stays set).
   */
  void releaseLock(Pod pod) {
    long deadline = System.nanoTime() + RELEASE_BUDGET.toNanos();
    long backoff = 100;
    for (int attempt = 1; ; attempt++) {
      Node node = client.nodes().withName(config.nodeName()).get();
      String lock = node == null ? null : annotation(node, Annotations.MUTEX_LOCK);
      if (lock == null) {
        return;
      }
      if (!NodeLock.releasableBy(
          lock, pod.getMetadata().getNamespace(), pod.getMetadata().getName())) {
        log.info("node lock held by another pod, left in place lock={} pod={}", lock, name(pod));
        return;
      }
      String patch =
          AnnotationPatch.of(Annotations.MUTEX_LOCK, null, node.getMetadata().getResourceVersion());
      try {
        client
            .nodes()
            .resource(PatchTargets.node(config.nodeName()))
            .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        return;
      } catch (KubernetesClientException e) {
        long left = deadline - System.nanoTime();
        if (attempt >= RELEASE_ATTEMPTS
            || left <= TimeUnit.MILLISECONDS.toNanos(backoff)
            || !sleep(backoff)) {
          throw e;
        }
        backoff *= 2;
      }
    }
  }

  /**
   * Merges {@code annotations} into the pod. A conflict or a busy server is retried within {@link
   * WriteRetry#DEFAULT}'s bounds, each retry re-reading the pod first: a pod deleted meanwhile ends
   * the retries with a 404.
   */
  private void patchPod(Pod pod, Map<String, @Nullable String> annotations) {
    String patch = AnnotationPatch.of(annotations, null);
    WriteRetry.DEFAULT.run(
        retry -> {
          if (retry
              && client
                      .pods()
                      .inNamespace(pod.getMetadata().getNamespace())
                      .withName(pod.getMetadata().getName())
                      .get()
                  == null) {
            throw new KubernetesClientException("pod " + name(pod) + " is gone", 404, null);
          }
          return client
              .pods()
              .resource(PatchTargets.pod(pod))
              .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        });
  }

  /**
   * Chooses kubelet devices so that each container gets replicas of the GPUs the scheduler picked
   * (spec §7.4). Falls back to kubelet's own order when no pod is pending.
   */
  public PreferredAllocationResponse preferred(PreferredAllocationRequest request) {
    List<List<ContainerDevice>> wanted = List.of();
    if (config.preferredAllocation()) {
      try {
        Pod pod = findPendingPod();
        String raw = annotation(pod, Annotations.VGPU_DEVICES_TO_ALLOCATE);
        if (raw != null) {
          wanted =
              PodDevicesCodec.decode(raw).orElse(PodDevices.empty()).containers().stream()
                  .filter(e -> !e.isEmpty())
                  .toList();
        }
      } catch (AllocationException | KubernetesClientException e) {
        log.info("preferred allocation without the scheduler's choice: {}", e.getMessage());
      }
    }
    PreferredAllocationResponse.Builder out = PreferredAllocationResponse.newBuilder();
    for (int i = 0; i < request.getContainerRequestsCount(); i++) {
      ContainerPreferredAllocationRequest creq = request.getContainerRequests(i);
      List<ContainerDevice> entry = i < wanted.size() ? wanted.get(i) : List.of();
      out.addContainerResponses(choose(creq, entry));
    }
    return out.build();
  }

  private static ContainerPreferredAllocationResponse choose(
      ContainerPreferredAllocationRequest creq, List<ContainerDevice> entry) {
    Set<String> chosen = new LinkedHashSet<>(creq.getMustIncludeDeviceIDsList());
    Set<String> gpusCovered = new LinkedHashSet<>();
    for (String id : chosen) {
      gpusCovered.add(KubeletDevices.physicalId(id));
    }
    for (ContainerDevice d : entry) {
      if (chosen.size() >= creq.getAllocationSize() || gpusCovered.contains(d.uuid())) {
        continue;
      }
      for (String id : creq.getAvailableDeviceIDsList()) {
        if (!chosen.contains(id) && KubeletDevices.isReplicaOf(id, d.uuid())) {
          chosen.add(id);
          gpusCovered.add(d.uuid());
          break;
        }
      }
    }
    for (String id : creq.getAvailableDeviceIDsList()) {
      if (chosen.size() >= creq.getAllocationSize()) {
        break;
      }
      chosen.add(id);
    }
    return ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(chosen).build();
  }

  static @Nullable String annotation(HasMetadata o, String key) {
    Map<String, String> a = o.getMetadata() == null ? null : o.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  private static String name(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  /** Sleeps; false when interrupted (the flag is set again), so that no retry runs hot. */
  private static boolean sleep(long millis) {
    if (Thread.currentThread().isInterrupted()) {
      return false;
    }
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
