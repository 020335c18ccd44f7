package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.ExactScorePlugin;
import io.hami.framework.api.ExcludedNodes;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.PreFilterExtensions;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.kube.InformerWatchdog;
import io.hami.kube.WatchedInformer;
import io.hami.plugins.explain.ScheduleExplainWriter;
import io.hami.plugins.metrics.GpuMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The vGPU plugin: HAMi's device placement as scheduler-framework extension points.
 *
 * <ul>
 *   <li>PreFilter derives each container's requests for every vendor (protocol §5.2) and reads the
 *       pod's placement annotations; the result is public under {@link #REQUESTS}. For a pod the
 *       index still counts from an earlier attempt, the state's {@link UsageOverlay} leaves that
 *       accounting out; PreFilter changes nothing shared. Its AddPod and RemovePod record, in a
 *       {@link UsageOverlay} of the state, the devices of the pods a preemption dry run adds or
 *       removes, so that Filter sees the GPU shares a victim frees.
 *   <li>PreFilter also names, through a {@link FreeShareIndex}, the nodes whose largest free share
 *       cannot hold the pod's GPU shape, so that the runtime does not run Filter on them.
 *   <li>Filter runs the per-device fit of §6.6 against the node's {@link NodeDevices} and rejects
 *       with HAMi's reason codes ({@code CardInsufficientMemory}, ...), which the framework counts
 *       across nodes in the pod's message.
 *   <li>Score ranks nodes by the node score of §6.7 under the node policy.
 *   <li>Reserve picks the devices (honouring {@link #PREFERRED_DEVICES} when set by a placement
 *       plugin that reserves earlier) and accounts them in the shared {@link DeviceUsageIndex},
 *       replacing an earlier attempt's accounting; Unreserve puts that back.
 *   <li>PreBind leaves {@code hami.io/vgpu-node}, {@code vgpu-time}, the vendors' {@code
 *       devices-to-allocate} and {@code devices-allocated}, {@code bind-phase=allocating}, {@code
 *       bind-time}, the placement's record for {@code hami explain} ({@code
 *       hami.io/schedule-explain}) and the {@code hami.io/vgpu-node} label in the cycle's {@link
 *       io.hami.framework.api.BindingMetadata}: the Binding carries them onto the pod, with no
 *       write of their own ({@link BindingWriter}).
 * </ul>
 */
public final class VgpuPlugin
    implements PreFilterPlugin,
        PreFilterExtensions,
        FilterPlugin,
        FilterEquivalence,
        ExactScorePlugin,
        ReservePlugin,
        PreBindPlugin,
        EnqueueExtensions,
        AutoCloseable {

  public static final String NAME = "vgpu";

  /**
   * The pod's derived requests and options, written in PreFilter; absent for pods without devices.
   */
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

  /** How often the ResourceQuota informer's watch is checked, and how long it may be lost. */
  private static final Duration QUOTA_INFORMER_CHECK = Duration.ofSeconds(5);

  private static final Duration QUOTA_INFORMER_GRACE = Duration.ofSeconds(30);

  private final FrameworkHandle handle;
  private final DeviceUsageIndex index;
  private final NodePlacer placer;
  private final ImmutableList<GpuVendor> vendors;
  private final PodRequestReader reader;
  private final NamespaceQuotaChecks quotas;
  private final BindingWriter writer;
  private final VgpuRequeue requeue;
  private final LongAdder[] fitFailures;
  private final @Nullable FreeShareIndex freeShares;

  /** What {@link #create} started for this plugin, stopped by {@link #close}. */
  @GuardedBy("owned")
  private final List<AutoCloseable> owned = new ArrayList<>();

  /**
   * @param quotas namespace GPU quotas (protocol §6.8), or null for none
   */
  VgpuPlugin(
      VgpuArgs args,
      FrameworkHandle handle,
      DeviceUsageIndex index,
      GpuMetrics metrics,
      @Nullable NamespaceQuotas quotas) {
    requireNonNull(args, "args");
    this.handle = requireNonNull(handle, "handle");
    this.index = requireNonNull(index, "index");
    this.placer = new NodePlacer(args.scoreByVendor(), DeviceFitter.QuotaCheck.NONE);
    this.vendors = args.vendors();
    index.addVendors(vendors);
    this.reader = new PodRequestReader(args, new PodAnnotationWarnings(handle.eventRecorder()));
    this.quotas = new NamespaceQuotaChecks(quotas, index, vendors);
    this.writer = new BindingWriter(handle, vendors);
    this.requeue = new VgpuRequeue(index.vendors());
    this.freeShares = args.freeShareIndex() ? new FreeShareIndex(index::node) : null;
    FitReason[] all = FitReason.values();
    String[] codes = new String[all.length];
    // In declaration order, the order of FitReasons' presence bits.
    for (int i = 0; i < all.length; i++) {
      codes[i] = all[i].code();
    }
    this.fitFailures = metrics.fitFailures(handle.schedulerName(), codes);
  }

  /**
   * Factory for the registry. With an API client, quotas come from a ResourceQuota informer and the
   * node handshake runs in the background (one per client, shared by the profiles); both stop when
   * the plugin is {@linkplain #close closed}.
   */
  public static VgpuPlugin create(VgpuArgs args, FrameworkHandle handle, SharedGpuState shared) {
    NamespaceQuotas quotas = null;
    KubernetesClient client = handle.client().orElse(null);
    DeviceUsageIndex index = shared.index(handle, args.vendors());
    GpuMetrics metrics = shared.metrics(handle);
    List<AutoCloseable> owned = new ArrayList<>();
    if (client != null) {
      quotas = NamespaceQuotas.of(args.vendors());
      owned.add(watchQuotas(client, quotas));
      if (args.handshakePeriodSeconds() > 0) {
        Duration period = Duration.ofSeconds(args.handshakePeriodSeconds());
        shared
            .handshake(
                client,
                () -> HandshakeMonitor.started(client, handle, index.vendors(), period, metrics))
            .addIndex(index);
        owned.add(() -> shared.releaseHandshake(client));
      }
    }
    VgpuPlugin plugin = new VgpuPlugin(args, handle, index, metrics, quotas);
    synchronized (plugin.owned) {
      plugin.owned.addAll(owned);
    }
    // The profile that records placements for hami explain records its failures too, with the
    // devices of each node that refused the pod.
    handle.addAttemptObserver(new ScheduleExplainWriter(plugin::deviceReasons));
    return plugin;
  }

  /**
   * Starts the ResourceQuota informer feeding {@code quotas}, waiting for its first listing, and
   * replaces it whenever its watch is lost (see {@link WatchedInformer}); the result stops both.
   */
  private static AutoCloseable watchQuotas(KubernetesClient client, NamespaceQuotas quotas) {
    // Its thread starts once the informer has listed: a failed listing leaves nothing behind.
    InformerWatchdog watchdog = new InformerWatchdog("hami-quota-informer-watchdog");
    watchdog
        .add(
            new WatchedInformer<>(
                "ResourceQuota",
                () -> client.resourceQuotas().inAnyNamespace().runnableInformer(0),
                List.of(quotas.handler()),
                WatchedInformer.countOf(client.resourceQuotas().inAnyNamespace()),
                QUOTA_INFORMER_GRACE,
                (name, cause, detail) -> {}))
        .start()
        .join();
    watchdog.start(QUOTA_INFORMER_CHECK);
    return watchdog;
  }

  /**
   * HAMi's device-level reasons for a node that refused the pod ({@code 1/4
   * CardInsufficientMemory}, {@code NodeInsufficientDevice}), on the devices the cycle's Filter saw
   * (without what the index counts for the pod from an earlier attempt), with the capacity a
   * shortage is measured against ({@code 2/2 CardInsufficientMemory (cards of 81920 MiB, at most
   * 1200 MiB free)}); empty when it fits there or the pod asks for no device.
   */
  List<String> deviceReasons(Pod pod, String nodeName) {
    PodDeviceRequests r;
    try {
      r = reader.requestsOf(pod);
    } catch (PodRequestReader.InvalidPodException e) {
      return List.of();
    }
    if (r == null) {
      return List.of();
    }
    UsageOverlay own = withoutEarlier(pod);
    NodeDevices view = cycleView(own, nodeName);
    FitReasons reasons =
        placer.place(view, r.requests(), r.options(), null, quotas.of(pod, own)).reasons();
    if (reasons == null) {
      return List.of();
    }
    return reasons.partsWithCapacity(view.devices());
  }

  /** Stops the ResourceQuota informer and gives back the handshake, last made first. */
  @Override
  public void close() {
    List<AutoCloseable> all;
    synchronized (owned) {
      all = new ArrayList<>(owned);
      owned.clear();
    }
    for (int i = all.size() - 1; i >= 0; i--) {
      try {
        all.get(i).close();
      } catch (Exception e) {
        log.warn("closing a vgpu resource failed", e);
      }
    }
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

  /** The device usage index this plugin places against. */
  public DeviceUsageIndex index() {
    return index;
  }

  // PreFilter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    PodDeviceRequests r;
    try {
      r = reader.requestsOf(pod);
    } catch (PodRequestReader.InvalidPodException e) {
      return PreFilterResult.of(Status.unresolvable(e.reason));
    }
    if (r == null) {
      return PreFilterResult.skip();
    }
    String uid = pod.getMetadata().getUid();
    if (uid == null || uid.isEmpty()) {
      return PreFilterResult.of(
          Status.unresolvable("metadata.uid is empty: devices are accounted by pod UID"));
    }
    // A pod scheduled again: the index still counts what an earlier attempt placed (its
    // annotations), and keeps counting it until Reserve replaces it. This cycle, and the dry runs
    // made from its state, see the node without it.
    UsageOverlay own = withoutEarlier(pod);
    CountedWithout earlier = own == null ? null : own.earlier();
    if (own != null) {
      r = r.withOverlay(own);
    }
    state.write(REQUESTS, r);
    if (freeShares == null) {
      return PreFilterResult.allNodes();
    }
    ExcludedNodes excluded = freeShares.refresh(snapshot, r.requests());
    if (excluded != null && earlier != null) {
      // The free shares were read with the pod's earlier usage: Filter decides on its node.
      excluded = sparing(excluded, snapshot, earlier.node());
    }
    return excluded == null ? PreFilterResult.allNodes() : PreFilterResult.excluding(excluded);
  }

  /**
   * An overlay leaving out what the index counts for an unbound pod from an earlier attempt, read
   * now; null when it counts nothing for it.
   */
  private @Nullable UsageOverlay withoutEarlier(Pod pod) {
    String uid = pod.getMetadata().getUid();
    CountedWithout earlier =
        uid == null || DeviceUsageIndex.bound(pod) ? null : index.countedWithout(uid);
    return earlier == null ? null : UsageOverlay.without(earlier);
  }

  /**
   * The node as the cycle's Filter saw it (the view pinned on its NodeInfo in the snapshot, or the
   * current view for a node the snapshot lacks), under {@code own} when not null.
   */
  private NodeDevices cycleView(@Nullable UsageOverlay own, String nodeName) {
    NodeInfo node = handle.snapshot().get(nodeName);
    NodeDevices view = node == null ? index.node(nodeName) : index.node(node);
    return own == null ? view : own.apply(view);
  }

  /** The node's current view, under {@code own} when not null. */
  private NodeDevices current(@Nullable UsageOverlay own, String nodeName) {
    NodeDevices view = index.node(nodeName);
    return own == null ? view : own.apply(view);
  }

  /** {@code excluded} except for the snapshot's node {@code name}. */
  private static ExcludedNodes sparing(ExcludedNodes excluded, Snapshot snapshot, String name) {
    NodeInfo node = snapshot.get(name);
    int at = node == null ? -1 : snapshot.nodes().indexOf(node);
    return at < 0 ? excluded : position -> position != at && excluded.excluded(position);
  }

  // PreFilter extensions: a preemption dry run on a copy of the cycle state

  /**
   * Counts {@code podToAdd}'s devices on the node in the state's overlay: a victim the dry run
   * removed gets back exactly what it held; a pod holding devices the index does not count yet (its
   * annotations just written) adds them; a pod with device requests and no placement (one nominated
   * to the node) is placed by this plugin's placer on the node as the overlay sees it, and ignored
   * when it does not fit. A pod the index already counts adds nothing.
   */
  @Override
  public Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd, NodeInfo node) {
    PodDeviceRequests requests = state.get(REQUESTS);
    String uid = podToAdd.uid();
    if (requests == null || uid == null) {
      return Status.success();
    }
    UsageOverlay overlay = requests.overlay();
    UsageOverlay.Change c = overlay == null ? null : overlay.change(uid);
    if (c != null) {
      if (c.sign() < 0) {
        UsageOverlay next = requireNonNull(overlay).copy();
        next.drop(uid);
        state.write(REQUESTS, requests.withOverlay(next));
      }
      return Status.success();
    }
    if (index.counted(uid) != null) {
      return Status.success();
    }
    Pod pod = podToAdd.pod();
    String ns = pod.getMetadata().getNamespace();
    DeviceUsageIndex.Held held = index.read(pod);
    if (held != null) {
      put(state, requests, uid, new UsageOverlay.Change(held.node(), ns, held.usage(), +1));
      return Status.success();
    }
    PodDeviceRequests r;
    try {
      r = reader.requestsOf(pod);
    } catch (PodRequestReader.InvalidPodException e) {
      return Status.success();
    }
    if (r == null) {
      return Status.success();
    }
    Placement p =
        placer.place(
            UsageOverlay.view(overlay, index, node),
            r.requests(),
            r.options(),
            null,
            DeviceFitter.QuotaCheck.NONE);
    if (p.fits()) {
      put(state, requests, uid, new UsageOverlay.Change(node.name(), ns, p.usage(), +1));
    }
    return Status.success();
  }

  /**
   * Frees {@code podToRemove}'s devices in the state's overlay: exactly what the index counts for
   * it, device by device, and its namespace's quota usage with them. A pod whose devices are still
   * being handed to it (assumed, or {@code hami.io/bind-phase=allocating}) keeps them, so
   * preemption never counts on its shares; a pod the overlay added is taken out again.
   */
  @Override
  public Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove, NodeInfo node) {
    PodDeviceRequests requests = state.get(REQUESTS);
    String uid = podToRemove.uid();
    if (requests == null || uid == null) {
      return Status.success();
    }
    UsageOverlay overlay = requests.overlay();
    UsageOverlay.Change c = overlay == null ? null : overlay.change(uid);
    if (c != null) {
      if (c.sign() > 0) {
        UsageOverlay next = requireNonNull(overlay).copy();
        next.drop(uid);
        state.write(REQUESTS, requests.withOverlay(next));
      }
      return Status.success();
    }
    DeviceUsageIndex.Counted counted = index.counted(uid);
    // The index's own reservation is confirmed by the decision's annotations, which the API shows
    // before the binding; a bound pod without them (in memory, where nothing writes them) is
    // served.
    boolean unconfirmed =
        counted != null && counted.assumed() && !DeviceUsageIndex.bound(podToRemove.pod());
    if (counted == null
        || UsageOverlay.allocating(podToRemove.pod(), podToRemove.assumed() || unconfirmed)) {
      return Status.success();
    }
    put(
        state,
        requests,
        uid,
        new UsageOverlay.Change(counted.node(), counted.namespace(), counted.usage(), -1));
    return Status.success();
  }

  /** Writes {@code requests} with its overlay plus one change (copy on write). */
  private static void put(
      CycleState state, PodDeviceRequests requests, String uid, UsageOverlay.Change c) {
    UsageOverlay overlay = requests.overlay();
    UsageOverlay next = overlay == null ? new UsageOverlay() : overlay.copy();
    next.put(uid, c);
    state.write(REQUESTS, requests.withOverlay(next));
  }

  // Filter

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    PodDeviceRequests r = state.get(REQUESTS);
    if (r == null) {
      return Status.success();
    }
    UsageOverlay overlay = r.overlay();
    FitReasons reasons =
        placer.feasible(
            UsageOverlay.view(overlay, index, node),
            r.requests(),
            r.options(),
            quotas.of(pod, overlay));
    if (reasons == null) {
      return Status.success();
    }
    for (long bits = reasons.presence(); bits != 0; bits &= bits - 1) {
      fitFailures[Long.numberOfTrailingZeros(bits)].increment();
    }
    if (log.isDebugEnabled()) {
      log.debug(
          "filter rejected pod={} node={} reason={}",
          pod.getMetadata().getName(),
          node.name(),
          reasons.message());
    }
    return rejection(reasons);
  }

  /**
   * The pod's requests and options, which with the node's device view decide Filter (the index
   * reports every change of a view); none under a namespace quota, whose usage changes with other
   * nodes' pods, nor under a preemption dry run's overlay, which changes views without the index.
   */
  @Override
  public @Nullable Object equivalenceClass(CycleState state, Pod pod) {
    PodDeviceRequests r = state.get(REQUESTS);
    if (r == null) {
      return NO_DEVICES;
    }
    if (r.overlay() != null) {
      return null;
    }
    return quotas.of(pod) == DeviceFitter.QuotaCheck.NONE ? r : null;
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
    return r == null ? 0 : VgpuScoring.nodeScore(hamiNodeScore(r, node), r.options().nodePolicy());
  }

  /** HAMi's node score itself, so that nodes HAMi ranks apart are not tied by the rounding. */
  @Override
  public double exactScore(CycleState state, Pod pod, NodeInfo node) {
    PodDeviceRequests r = state.get(REQUESTS);
    return r == null
        ? 0
        : VgpuScoring.exactNodeScore(hamiNodeScore(r, node), r.options().nodePolicy());
  }

  /** The node's HAMi score as this cycle sees it: with the preemption dry run's changes, if any. */
  private float hamiNodeScore(PodDeviceRequests r, NodeInfo node) {
    UsageOverlay overlay = r.overlay();
    return overlay == null || !overlay.changes(node.name())
        ? index.nodeScore(node)
        : overlay.apply(index.node(node)).nodeScore();
  }

  // Reserve

  /**
   * Places the pod on the node's current devices, without what the index still counts for it from
   * an earlier attempt (read again now), and accounts the placement: the index releases the earlier
   * accounting and counts the new one in one change.
   */
  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    PodDeviceRequests r = state.get(REQUESTS);
    if (r == null) {
      return Status.success();
    }
    UsageOverlay own = withoutEarlier(pod);
    NodeDevices view = current(own, nodeName);
    Placement p =
        placer.place(
            view, r.requests(), r.options(), state.get(PREFERRED_DEVICES), quotas.of(pod, own));
    if (!p.fits()) {
      return Status.unschedulable(requireNonNull(p.reasons()).codes().toArray(new String[0]));
    }
    // PreFilter wrote the requests only for a pod with a UID.
    String uid = requireNonNull(pod.getMetadata().getUid(), "uid");
    IndexReservation reservation =
        index.reserve(uid, pod.getMetadata().getNamespace(), nodeName, p.usage());
    state.write(RESERVED, new Reserved(p, reservation));
    return Status.success();
  }

  /**
   * Takes the reservation back, and counts again what it replaced (the pod still carries that
   * attempt's annotations), unless the informer has since confirmed or replaced it or the pod is
   * gone.
   */
  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    Reserved reserved = state.get(RESERVED);
    if (reserved != null) {
      index.unreserve(reserved.reservation());
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
    return writer.write(state, pod, nodeName, reserved.placement());
  }

  // Requeueing

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return requeue.events();
  }
}
