package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.model.Decoded;
import io.hami.model.client.PatchTargets;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.DeviceSelectors;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.MigAllocationJson;
import io.hami.model.pod.PodDevices;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.plugins.metrics.GpuMetrics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The vGPU plugin: HAMi's device placement as scheduler-framework extension points.
 *
 * <ul>
 *   <li>PreFilter derives each container's requests for every vendor (protocol §5.2) and reads
 *       the pod's placement annotations; the result is public under {@link #REQUESTS}.
 *   <li>Filter runs the per-device fit of §6.6 against the node's {@link NodeDevices} and rejects
 *       with HAMi's reason codes ({@code CardInsufficientMemory}, ...), which the framework counts
 *       across nodes in the pod's message.
 *   <li>Score ranks nodes by the node score of §6.7 under the node policy.
 *   <li>Reserve picks the devices (honouring {@link #PREFERRED_DEVICES} when set by a placement
 *       plugin that reserves earlier) and accounts them in the shared {@link DeviceUsageIndex}.
 *   <li>PreBind writes {@code hami.io/vgpu-node}, {@code vgpu-time}, the vendors' {@code
 *       devices-to-allocate} and {@code devices-allocated}, {@code bind-phase=allocating} and
 *       {@code bind-time} in one merge patch, plus the {@code hami.io/vgpu-node} label and the
 *       placement's record for {@code hami explain} ({@code hami.io/schedule-explain}).
 * </ul>
 */
public final class VgpuPlugin
    implements PreFilterPlugin,
        FilterPlugin,
        FilterEquivalence,
        ScorePlugin,
        ReservePlugin,
        PreBindPlugin,
        EnqueueExtensions {

  public static final String NAME = "vgpu";

  private static final String NVIDIA = "NVIDIA";

  /** The pod's derived requests and options, written in PreFilter; absent for pods without devices. */
  public static final StateKey<PodDeviceRequests> REQUESTS =
      StateKey.of("PreFilter" + NAME, PodDeviceRequests.class);

  /**
   * Devices a placement plugin prefers. Set it in a Reserve (or Score) plugin ordered before {@code
   * vgpu}; {@code vgpu} Reserve uses it when its node is the reserved node and every device passes
   * the fit, and otherwise places by its own GPU policy.
   */
  public static final StateKey<DeviceChoice> PREFERRED_DEVICES =
      StateKey.of("PreferredDevices" + NAME, DeviceChoice.class);

  static final StateKey<Reserved> RESERVED = StateKey.of("Reserve" + NAME, Reserved.class);

  private static final Logger log = LoggerFactory.getLogger(VgpuPlugin.class);

  private final VgpuArgs args;
  private final FrameworkHandle handle;
  private final DeviceUsageIndex index;
  private final NodePlacer placer;
  private final ImmutableList<GpuVendor> vendors;
  private final NodePolicy defaultNodePolicy;
  private final GpuPolicy defaultGpuPolicy;
  private final Map<String, GpuPolicy> policies = new ConcurrentHashMap<>();
  private final Set<String> registrationKeys;
  private final @Nullable NamespaceQuotas quotas;
  private final java.util.concurrent.atomic.LongAdder[] fitFailures;
  private final Map<String, Integer> memoryFactors;
  private final PodAnnotationWarnings warnings;

  /**
   * @param quotas namespace GPU quotas (protocol §6.8), or null for none
   */
  VgpuPlugin(
      VgpuArgs args,
      FrameworkHandle handle,
      DeviceUsageIndex index,
      GpuMetrics metrics,
      @Nullable NamespaceQuotas quotas) {
    this.args = requireNonNull(args, "args");
    this.handle = requireNonNull(handle, "handle");
    this.index = requireNonNull(index, "index");
    this.placer = new NodePlacer(args.scoreByVendor(), DeviceFitter.QuotaCheck.NONE);
    this.vendors = args.vendors();
    index.addVendors(vendors);
    Map<String, Integer> factors = new HashMap<>();
    for (GpuVendor v : vendors) {
      factors.put(v.word(), v.memoryFactor());
    }
    this.memoryFactors = Map.copyOf(factors);
    this.defaultNodePolicy = NodePolicy.parse(args.nodeSchedulerPolicy());
    this.defaultGpuPolicy = GpuPolicy.parse(args.gpuSchedulerPolicy());
    // Handshake values flip every period on every live node (request, report): requeueing on
    // each flip would retry every waiting pod all the time. Health changes they cause reach the
    // pods through the periodic flush of unschedulable pods.
    Set<String> keys = new HashSet<>(ModelReaders.registrationKeys(index.vendors()));
    for (GpuVendor v : index.vendors()) {
      keys.remove(v.keys().handshake());
    }
    this.registrationKeys = Set.copyOf(keys);
    this.quotas = quotas;
    FitReason[] all = FitReason.values();
    String[] codes = new String[all.length];
    for (FitReason r : all) {
      codes[r.ordinal()] = r.code();
    }
    this.fitFailures = metrics.fitFailures(handle.schedulerName(), codes);
    this.warnings = new PodAnnotationWarnings(handle.eventRecorder());
  }

  /**
   * Factory for the registry. With an API client, quotas come from a ResourceQuota informer and
   * the node handshake runs in the background (one per client, shared by the profiles).
   */
  public static VgpuPlugin create(VgpuArgs args, FrameworkHandle handle, SharedGpuState shared) {
    NamespaceQuotas quotas = null;
    KubernetesClient client = handle.client().orElse(null);
    DeviceUsageIndex index = shared.index(handle, args.vendors());
    if (client != null) {
      quotas = NamespaceQuotas.of(args.vendors());
      client.resourceQuotas().inAnyNamespace().inform(quotas.handler());
      if (args.handshakePeriodSeconds() > 0) {
        shared.handshake(client, () -> startHandshake(client, handle, args, shared)).addIndex(index);
      }
    }
    return new VgpuPlugin(args, handle, index, shared.metrics(handle), quotas);
  }

  private static HandshakeMonitor startHandshake(
      KubernetesClient client, FrameworkHandle handle, VgpuArgs args, SharedGpuState shared) {
    HandshakeMonitor.Writer api = HandshakeMonitor.apiWriter(client);
    GpuMetrics metrics = shared.metrics(handle);
    io.prometheus.metrics.core.datapoints.CounterDataPoint writes = metrics.handshakeWrites(handle.schedulerName());
    HandshakeMonitor m = new HandshakeMonitor(
        shared.index(handle).vendors(),
        handle.clock(),
        java.time.ZoneId.systemDefault(),
        java.time.Duration.ofSeconds(args.handshakePeriodSeconds()),
        (node, rv, annotations) -> {
          writes.inc();
          return api.write(node, rv, annotations);
        });
    handle.addClusterStateListener(m.listener());
    metrics.addHandshakes(handle.schedulerName(), m::counts);
    java.util.concurrent.ScheduledExecutorService ex =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "hami-gpu-handshake");
              t.setDaemon(true);
              return t;
            });
    m.start(ex, handle::leading);
    return m;
  }

  /** The pod namespace's quotas against what the namespace holds on each vendor, or no check. */
  DeviceFitter.QuotaCheck quotaOf(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    if (quotas == null || ns == null) {
      return DeviceFitter.QuotaCheck.NONE;
    }
    Map<String, NamespaceQuotas.Limits> limits = quotas.all(ns);
    if (limits.isEmpty()) {
      return DeviceFitter.QuotaCheck.NONE;
    }
    DeviceUsageIndex.NamespaceUsage u = index.namespace(ns);
    com.google.common.collect.ImmutableMap.Builder<String, NamespaceQuota.VendorQuota> b =
        com.google.common.collect.ImmutableMap.builder();
    limits.forEach(
        (vendor, l) ->
            b.put(
                vendor,
                new NamespaceQuota.VendorQuota(
                    l.mem(), l.cores(), u.memMiB(vendor), u.cores(vendor), memoryFactors.getOrDefault(vendor, 1))));
    return new NamespaceQuota(b.buildOrThrow());
  }

  /** Registry entry. */
  public static PluginRegistration<VgpuArgs> registration(SharedGpuState shared) {
    return PluginRegistration.of(
        NAME, VgpuArgs.class, VgpuArgs.DEFAULTS, (args, handle) -> create(args, handle, shared));
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The vendors this plugin places. */
  public List<GpuVendor> vendors() {
    return vendors;
  }

  /** The index this plugin places against (shared by the profile). */
  public DeviceUsageIndex index() {
    return index;
  }

  // PreFilter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    PodDeviceRequests r;
    try {
      r = requestsOf(pod);
    } catch (InvalidPodException e) {
      return PreFilterResult.of(Status.unresolvable(e.getMessage()));
    }
    if (r == null) {
      return PreFilterResult.skip();
    }
    // A pod scheduled again gives up what an earlier attempt accounted for it.
    String uid = pod.getMetadata().getUid();
    if (uid != null && index.nodeOf(uid) != null && !bound(pod)) {
      index.release(uid);
    }
    state.write(REQUESTS, r);
    return PreFilterResult.allNodes();
  }

  private static boolean bound(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty();
  }

  /** A pod annotation or resource that cannot be used; the message names it. */
  static final class InvalidPodException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidPodException(String message) {
      super(message);
    }
  }

  /** The pod's requests and options, or null when it asks for no device. */
  @Nullable PodDeviceRequests requestsOf(Pod pod) throws InvalidPodException {
    List<Container> inits = pod.getSpec() == null || pod.getSpec().getInitContainers() == null
        ? List.of() : pod.getSpec().getInitContainers();
    List<Container> apps = pod.getSpec() == null || pod.getSpec().getContainers() == null
        ? List.of() : pod.getSpec().getContainers();
    List<List<VendorRequest>> containers = new ArrayList<>(inits.size() + apps.size());
    boolean any = false;
    for (Container c : inits) {
      List<VendorRequest> rs = containerRequests(c);
      any |= !rs.isEmpty();
      containers.add(rs);
    }
    for (Container c : apps) {
      List<VendorRequest> rs = containerRequests(c);
      any |= !rs.isEmpty();
      containers.add(rs);
    }
    if (!any) {
      return null;
    }
    return new PodDeviceRequests(PodRequests.of(containers, inits.size()), optionsOf(pod));
  }

  private List<VendorRequest> containerRequests(Container c) throws InvalidPodException {
    ContainerResources res = ContainerResources.of(c);
    List<VendorRequest> out = new ArrayList<>(1);
    for (GpuVendor v : vendors) {
      Decoded<ContainerRequest> d = v.request(res);
      if (d instanceof Decoded.Err<ContainerRequest> e) {
        throw new InvalidPodException("container " + c.getName() + ": " + e.error());
      }
      ContainerRequest r = d.orElse(ContainerRequest.none(v.word()));
      if (r.isEmpty()) {
        continue;
      }
      int cores = r.coresreq();
      if (args.exclusiveWholeCards() && cores == 0 && v.wantsExclusiveCores(res)) {
        cores = 100;
      }
      out.add(new VendorRequest(v.word(), r.nums(), r.memreq(), r.memPercentage(), cores));
    }
    return out;
  }

  PodGpuOptions optionsOf(Pod pod) throws InvalidPodException {
    Map<String, String> annos = pod.getMetadata().getAnnotations();
    if (annos == null || annos.isEmpty()) {
      return new PodGpuOptions(DeviceFilter.NONE, defaultGpuPolicy, defaultNodePolicy, ScoringWeights.DEFAULT, false);
    }
    String np = annos.get(Annotations.NODE_SCHEDULER_POLICY);
    String gp = annos.get(Annotations.GPU_SCHEDULER_POLICY);
    ScoringWeights weights = ScoringWeights.DEFAULT;
    String w = annos.get(Annotations.DEVICE_SCORING_WEIGHTS);
    if (w != null) {
      try {
        weights = ScoringWeights.parse(w);
      } catch (IllegalArgumentException e) {
        throw new InvalidPodException(Annotations.DEVICE_SCORING_WEIGHTS + "=\"" + w + "\": " + e.getMessage());
      }
    }
    DeviceFilter filter =
        DeviceFilter.of(
            annos.get(Annotations.NVIDIA_USE_GPUTYPE),
            annos.get(Annotations.NVIDIA_NOUSE_GPUTYPE),
            annos.get(Annotations.NVIDIA_USE_GPUUUID),
            annos.get(Annotations.NVIDIA_NOUSE_GPUUUID),
            annos.get(Annotations.NVIDIA_VGPU_MODE));
    // Every other vendor has its own selection annotations (protocol §2.3).
    Map<String, DeviceFilter> others = null;
    for (GpuVendor v : vendors) {
      if (v.word().equals(NVIDIA)) {
        continue;
      }
      DeviceFilter f =
          DeviceFilter.of(
              get(annos, v.keys().useType()),
              get(annos, v.keys().noUseType()),
              get(annos, v.keys().useUuid()),
              get(annos, v.keys().noUseUuid()),
              null);
      if (!f.isEmpty()) {
        if (others == null) {
          others = new HashMap<>();
        }
        others.put(v.word(), f);
      }
    }
    if (others != null) {
      filter = filter.withVendors(others);
    }
    GpuPolicy gpuPolicy = gp == null || gp.isBlank() ? defaultGpuPolicy : policies.computeIfAbsent(gp, GpuPolicy::parse);
    NodePolicy nodePolicy = np == null || np.isBlank() ? defaultNodePolicy : NodePolicy.parse(np);
    warnUnusable(pod, gp, np, annos.get(Annotations.NVIDIA_NUMA_BIND), nodePolicy);
    return new PodGpuOptions(
        filter, gpuPolicy, nodePolicy, weights, DeviceSelectors.flag(annos, Annotations.NVIDIA_NUMA_BIND));
  }

  private static final Set<String> GO_BOOLS =
      Set.of("1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False");

  /**
   * Reports option annotations whose value HAMi reads leniently (an unknown policy sorts as spread
   * or binpack, a non-boolean numa-bind is false): the pod is placed as HAMi would place it, and
   * its owner learns that the value was not understood.
   */
  private void warnUnusable(
      Pod pod, @Nullable String gp, @Nullable String np, @Nullable String numaBind, NodePolicy nodePolicy) {
    if (gp != null && !gp.isBlank()) {
      List<String> unknown = GpuPolicy.unknownItems(gp);
      if (!unknown.isEmpty()) {
        warnings.warn(pod, Annotations.GPU_SCHEDULER_POLICY, gp,
            "unknown policy " + unknown.stream().map(u -> "\"" + u + "\"").collect(Collectors.joining(", "))
                + " (known: binpack, spread, topology-aware, mutex, numa, or a comma chain of them)",
            gp.contains(",") ? "unknown items are ignored" : "devices are ordered as spread");
      }
    }
    if (np != null && !np.isBlank() && !NodePolicy.isKnown(np)) {
      warnings.warn(pod, Annotations.NODE_SCHEDULER_POLICY, np, "unknown policy (known: binpack, spread)",
          "nodes are ranked as " + nodePolicy.wireName());
    }
    if (numaBind != null && !numaBind.isBlank() && !GO_BOOLS.contains(numaBind.trim())) {
      warnings.warn(pod, Annotations.NVIDIA_NUMA_BIND, numaBind, "not a boolean (true or false)",
          "NUMA binding is off");
    }
  }

  private static @Nullable String get(Map<String, String> annos, String key) {
    return key.isEmpty() ? null : annos.get(key);
  }

  // Filter

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    PodDeviceRequests r = state.get(REQUESTS);
    if (r == null) {
      return Status.success();
    }
    FitReasons reasons = placer.feasible(index.node(node), r.requests(), r.options(), quotaOf(pod));
    if (reasons == null) {
      return Status.success();
    }
    for (long bits = reasons.presence(); bits != 0; bits &= bits - 1) {
      fitFailures[Long.numberOfTrailingZeros(bits)].increment();
    }
    if (log.isDebugEnabled()) {
      log.debug("filter rejected pod={} node={} reason={}", pod.getMetadata().getName(), node.name(), reasons.message());
    }
    return rejection(reasons);
  }

  /**
   * The pod's requests and options, which with the node's device view decide Filter (the index
   * reports every change of a view); none under a namespace quota, whose usage changes with other
   * nodes' pods.
   */
  @Override
  public @Nullable Object equivalenceClass(CycleState state, Pod pod) {
    PodDeviceRequests r = state.get(REQUESTS);
    if (r == null) {
      return NO_DEVICES;
    }
    return quotaOf(pod) == DeviceFitter.QuotaCheck.NONE ? r : null;
  }

  private static final Object NO_DEVICES = new Object();

  // One shared rejection per set of reasons: nodes refused alike (most of a full cluster) then
  // cost no allocation, and the scheduler's summary counts them by identity.
  private final Map<Long, Status> rejections = new ConcurrentHashMap<>();

  private Status rejection(FitReasons reasons) {
    long bits = reasons.presence();
    Status s = rejections.get(bits);
    if (s == null) {
      s = Status.unschedulable(reasons.codes().toArray(new String[0])).withPlugin(NAME);
      rejections.putIfAbsent(bits, s);
    }
    return s;
  }

  // Score

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    PodDeviceRequests r = state.get(REQUESTS);
    if (r == null) {
      return 0;
    }
    return VgpuScoring.nodeScore(index.node(node).nodeScore(), r.options().nodePolicy());
  }

  // Reserve

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    PodDeviceRequests r = state.get(REQUESTS);
    if (r == null) {
      return Status.success();
    }
    Placement p =
        placer.place(index.node(nodeName), r.requests(), r.options(), state.get(PREFERRED_DEVICES), quotaOf(pod));
    if (!p.fits()) {
      return Status.unschedulable(requireNonNull(p.reasons()).codes().toArray(new String[0]));
    }
    index.reserve(pod.getMetadata().getUid(), pod.getMetadata().getNamespace(), nodeName, p.usage());
    state.write(RESERVED, new Reserved(p));
    return Status.success();
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    if (state.get(RESERVED) != null) {
      index.unreserve(pod.getMetadata().getUid());
      state.delete(RESERVED);
    }
  }

  // PreBind

  @Override
  public Status preBind(CycleState state, Pod pod, String nodeName) {
    Reserved reserved = state.get(RESERVED);
    if (reserved == null) {
      return Status.skip();
    }
    KubernetesClient client = handle.client().orElse(null);
    if (client == null) {
      return Status.success();
    }
    Instant now = handle.clock().instant();
    Map<String, String> annos = new LinkedHashMap<>(bindingAnnotations(reserved.placement(), now, vendors));
    annos.put(Annotations.SCHEDULE_EXPLAIN, ScheduleRecordCodec.encode(scheduledRecord(state, nodeName, now)));
    Map<String, Object> patch =
        Map.of(
            "metadata",
            Map.of("annotations", annos, "labels", Map.of(Annotations.VGPU_NODE, nodeName)));
    try {
      client
          .pods()
          .resource(PatchTargets.pod(pod))
          .patch(PatchContext.of(PatchType.JSON_MERGE), client.getKubernetesSerialization().asJson(patch));
      return Status.success();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return Status.unschedulable("pod was deleted before binding");
      }
      return Status.error(e);
    }
  }

  /** What {@code hami explain} shows for the placement: the policies and how the node was chosen. */
  static ScheduleRecord.Scheduled scheduledRecord(CycleState state, String nodeName, Instant now) {
    PodDeviceRequests r = state.get(REQUESTS);
    PodGpuOptions o = r == null ? PodGpuOptions.DEFAULT : r.options();
    String gpuPolicy = o.gpuPolicy().wireName() + (o.numaBind() ? ",numa-bind" : "");
    NodeSelection sel = state.get(NodeSelection.KEY);
    if (sel == null) {
      return new ScheduleRecord.Scheduled(now, nodeName, null, o.nodePolicy().wireName(), gpuPolicy, 0, 0, List.of());
    }
    List<ScheduleRecord.NodeScore> top = new ArrayList<>(sel.top().size());
    for (NodeSelection.Candidate c : sel.top()) {
      top.add(new ScheduleRecord.NodeScore(c.node(), c.score()));
    }
    return new ScheduleRecord.Scheduled(
        now, nodeName, sel.score(), o.nodePolicy().wireName(), gpuPolicy, sel.feasible(), sel.evaluated(), top);
  }

  /** The pod annotations that record a placement (protocol §6.9 and §6.10), default vendors. */
  public static Map<String, String> bindingAnnotations(Placement p, long epochSeconds) {
    return bindingAnnotations(p, Instant.ofEpochSecond(epochSeconds), GpuVendors.accounted());
  }

  /**
   * The pod annotations that record a placement: {@code hami.io/vgpu-node} and {@code vgpu-time},
   * each vendor's {@code devices-to-allocate} and {@code devices-allocated} (one entry per
   * container, init first, empty for containers without that vendor's devices) with the vendor's
   * extras (Cambricon's profile, Ascend's runtime info), then {@code bind-phase} and {@code
   * bind-time}.
   */
  public static Map<String, String> bindingAnnotations(Placement p, Instant now, List<GpuVendor> vendors) {
    Map<String, String> out = new LinkedHashMap<>();
    String secs = Long.toString(now.getEpochSecond());
    out.put(Annotations.VGPU_NODE, p.node());
    out.put(Annotations.VGPU_TIME, secs);
    for (GpuVendor v : vendors) {
      List<List<ContainerDevice>> containers = new ArrayList<>(p.containers().size());
      boolean any = false;
      for (List<DevicePick> picks : p.containers()) {
        List<ContainerDevice> c = new ArrayList<>(picks.size());
        for (DevicePick d : picks) {
          if (d.vendor().equals(v.word())) {
            c.add(new ContainerDevice(d.id(), d.vendor(), d.memMiB(), d.cores()));
          }
        }
        any |= !c.isEmpty();
        containers.add(c);
      }
      if (any) {
        out.putAll(v.allocationAnnotations(new PodDevices(containers), now));
      }
    }
    List<MigAllocation> mig = migAllocations(p);
    if (!mig.isEmpty()) {
      out.put(Annotations.VGPU_MIG_ALLOCATIONS, MigAllocationJson.encode(mig));
    }
    out.put(Annotations.BIND_PHASE, BindPhase.ALLOCATING.wire());
    out.put(Annotations.BIND_TIME, secs);
    return out;
  }

  /**
   * The dynamic MIG instances of a placement (protocol §8.3), scheduler fields only: the device
   * index is the pick's position within its container's entry of its vendor's annotation.
   */
  static List<MigAllocation> migAllocations(Placement p) {
    List<MigAllocation> out = new ArrayList<>();
    for (int c = 0; c < p.containers().size(); c++) {
      Map<String, Integer> position = new HashMap<>();
      for (DevicePick d : p.containers().get(c)) {
        int at = position.merge(d.vendor(), 1, Integer::sum) - 1;
        if (d.mig() != null) {
          out.add(new MigAllocation(c, at, d.id(), d.mig().profile(), d.mig().placement(), Optional.empty()));
        }
      }
    }
    return out;
  }

  // Requeueing

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(ClusterEvent.of(EventResource.NODE, ActionType.ADD)),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.NODE, ActionType.UPDATE_NODE_ANNOTATION, ActionType.UPDATE_NODE_ALLOCATABLE),
            this::nodeHint),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.ASSIGNED_POD,
                ActionType.DELETE,
                ActionType.UPDATE_POD_SCALE_DOWN,
                ActionType.UPDATE_POD_ANNOTATION),
            VgpuPlugin::podHint));
  }

  private QueueingHint nodeHint(Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (!(oldObj instanceof Node o) || !(newObj instanceof Node n)) {
      return QueueingHint.QUEUE;
    }
    Map<String, String> oa = annotations(o);
    Map<String, String> na = annotations(n);
    for (String k : registrationKeys) {
      if (!Objects.equals(oa.get(k), na.get(k))) {
        return QueueingHint.QUEUE;
      }
    }
    Object alloc1 = o.getStatus() == null ? null : o.getStatus().getAllocatable();
    Object alloc2 = n.getStatus() == null ? null : n.getStatus().getAllocatable();
    return Objects.equals(alloc1, alloc2) ? QueueingHint.SKIP : QueueingHint.QUEUE;
  }

  private static QueueingHint podHint(Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    HasMetadata before = oldObj != null ? oldObj : newObj;
    if (before == null) {
      return QueueingHint.QUEUE;
    }
    // Only pods that held devices free any when they leave or change.
    return annotations(before).containsKey(Annotations.VGPU_NODE) ? QueueingHint.QUEUE : QueueingHint.SKIP;
  }

  private static Map<String, String> annotations(HasMetadata o) {
    Map<String, String> a = o.getMetadata() == null ? null : o.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }
}
