package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.NodeInfo;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Per-node device capacity and usage, kept incrementally from node and pod events and from this
 * scheduler's own reservations. Never rebuilt per pod: each event touches only the node it is
 * about, and produces a new immutable {@link NodeDevices} view for that node.
 *
 * <p>Capacity comes from each node's register annotations (one entry per vendor), with health
 * (handshake and allocatable) and {@code hami.io/device-cordon} applied. Usage is the sum, per
 * device, of the {@link PodUsage} of every pod attributed to the node: pods that carry an
 * allocation annotation naming the node in {@code hami.io/vgpu-node} and are neither Succeeded,
 * Failed nor deleted, plus pods this scheduler {@linkplain #reserve reserved} that the informer has
 * not yet shown with their annotations. A terminating pod (deletion timestamp set, a preemption
 * victim for instance) keeps its devices until it is gone from the API or reaches Succeeded or
 * Failed: its containers may still be using them, so a preemptor waits for them. Entries are keyed
 * by pod UID, so the informer's view of a pod replaces its reservation, except for an unbound pod's
 * annotations from an earlier attempt, which the reservation already replaced.
 *
 * <p>Other plugins of the same profile read the views through {@link #node(NodeInfo)} (for example
 * a fragmentation-aware placement plugin); they must not mutate anything. Each new view is reported
 * to the scheduler ({@link FrameworkHandle#nodeStateChanged}), so a node's NodeInfo is replaced
 * whenever its view is, and what is kept on a NodeInfo (Filter verdicts, compact nodes) stays valid
 * while it lives.
 *
 * <p>Concurrency: mutations (informer events on the cache thread, reserve and unreserve on the
 * scheduling and binding threads) are serialised by one lock and cost O(devices of the node).
 * Readers take no lock: each node's view is published through a volatile field and never changes
 * once published.
 */
public final class DeviceUsageIndex {

  /** Reads a node's register annotations, health and cordon list. */
  @FunctionalInterface
  public interface NodeReader {
    /**
     * Decodes the node; never throws: a bad annotation comes back as {@link Registered#invalid}.
     */
    Registered read(Node node);
  }

  /** Reads what a pod holds according to its annotations. */
  @FunctionalInterface
  public interface PodReader {
    /** The pod's node and usage, or null when it holds no devices (or is terminal). */
    @Nullable Held read(Pod pod);
  }

  /** Called once each time a node's device annotations turn unreadable. */
  @FunctionalInterface
  public interface InvalidNodeListener {
    /** {@code registered} says why ({@link Registered#invalid()}) and where (vendor, field). */
    void invalid(Node node, Registered registered);
  }

  /**
   * A node's registered devices (idle, with health and cordon applied).
   *
   * @param devices devices of every vendor
   * @param pairs topology pair scores
   * @param invalid why the annotations could not be read, or null
   * @param invalidVendor the vendor whose annotation could not be read (empty when readable)
   * @param invalidField the annotation (and field inside it) at fault (empty when readable)
   */
  public record Registered(
      ImmutableList<DeviceUsage> devices,
      PairScores pairs,
      @Nullable String invalid,
      String invalidVendor,
      String invalidField) {
    public static final Registered NONE = new Registered(ImmutableList.of(), PairScores.NONE, null);

    public Registered {
      requireNonNull(devices, "devices");
      requireNonNull(pairs, "pairs");
      requireNonNull(invalidVendor, "invalidVendor");
      requireNonNull(invalidField, "invalidField");
    }

    public Registered(
        ImmutableList<DeviceUsage> devices, PairScores pairs, @Nullable String invalid) {
      this(devices, pairs, invalid, "", "");
    }

    /** Unreadable, vendor and field unknown. */
    public static Registered invalid(String message) {
      return invalid("unknown", "", message);
    }

    /** Unreadable because of {@code vendor}'s annotation {@code field}. */
    public static Registered invalid(String vendor, String field, String message) {
      return new Registered(ImmutableList.of(), PairScores.NONE, message, vendor, field);
    }
  }

  /** What one pod holds on one node. */
  public record Held(String node, PodUsage usage) {
    public Held {
      requireNonNull(node, "node");
      requireNonNull(usage, "usage");
    }
  }

  /**
   * What the index counts for one pod.
   *
   * @param node the node its devices are counted on
   * @param namespace the namespace its usage counts toward (quotas), or null
   * @param usage what it holds on each device
   * @param assumed reserved by this scheduler and not yet confirmed by the pod's annotations
   */
  public record Counted(String node, @Nullable String namespace, PodUsage usage, boolean assumed) {
    public Counted {
      requireNonNull(node, "node");
      requireNonNull(usage, "usage");
    }
  }

  private record PodEntry(
      String node, @Nullable String namespace, PodUsage usage, boolean assumed) {
    static PodEntry of(Counted c) {
      return new PodEntry(c.node(), c.namespace(), c.usage(), c.assumed());
    }

    Counted counted() {
      return new Counted(node, namespace, usage, assumed);
    }
  }

  /** Told of each node whose view changed (the scheduler then makes it a new NodeInfo). */
  private volatile Consumer<String> changed = node -> {};

  /** The vendors this index reads, when it reads them through the protocol model. */
  private volatile @Nullable AtomicReference<ImmutableList<GpuVendor>> vendors;

  /** Reads through {@code vendors}, which {@link #addVendors} extends, and reports changes. */
  void wire(AtomicReference<ImmutableList<GpuVendor>> vendors, Consumer<String> changed) {
    this.vendors = vendors;
    this.changed = changed;
  }

  /** Reads these vendors too (replacing a default vendor of the same keyword). */
  public void addVendors(List<GpuVendor> more) {
    AtomicReference<ImmutableList<GpuVendor>> v = vendors;
    if (v == null) {
      return;
    }
    synchronized (lock) {
      ImmutableList<GpuVendor> all = GpuVendors.union(requireNonNull(v.get()), more);
      v.set(all);
      registrationInputs.setKeys(Set.copyOf(ModelReaders.registrationKeys(all)));
    }
  }

  /** The vendors this index reads (the defaults for an index with its own readers). */
  public List<GpuVendor> vendors() {
    AtomicReference<ImmutableList<GpuVendor>> v = vendors;
    return v == null ? GpuVendors.accounted() : requireNonNull(v.get());
  }

  /** The informer hook that keeps this index current. */
  public ClusterStateListener listener() {
    return new IndexListener(this);
  }

  private final Object lock = new Object();
  private final ConcurrentHashMap<String, NodeDeviceState> nodes = new ConcurrentHashMap<>();
  private final NamespaceUsages namespaces = new NamespaceUsages();

  @GuardedBy("lock")
  private final Map<String, PodEntry> pods = new HashMap<>();

  private final NodeReader nodeReader;
  private final PodReader podReader;
  private final InvalidNodes invalidNodes;

  private final RegistrationInputs registrationInputs;

  /**
   * @param nodeReader reads registrations
   * @param podReader reads pod allocations
   * @param invalid told when a node's annotations turn unreadable
   * @param registrationKeys the node annotations registrations depend on; a node update that
   *     changes none of them (nor allocatable) is not re-read. Empty means every annotation.
   */
  public DeviceUsageIndex(
      NodeReader nodeReader,
      PodReader podReader,
      InvalidNodeListener invalid,
      Set<String> registrationKeys) {
    this.nodeReader = requireNonNull(nodeReader, "nodeReader");
    this.podReader = requireNonNull(podReader, "podReader");
    this.invalidNodes = new InvalidNodes(invalid);
    this.registrationInputs = new RegistrationInputs(registrationKeys);
  }

  public DeviceUsageIndex(NodeReader nodeReader, PodReader podReader, InvalidNodeListener invalid) {
    this(nodeReader, podReader, invalid, Set.of());
  }

  /** The current view of a node; a node never seen has no devices. */
  public NodeDevices node(String name) {
    NodeDeviceState s = nodes.get(name);
    return s != null ? s.view : NodeDeviceState.empty(name);
  }

  /**
   * The view of a node of the snapshot, pinned on its NodeInfo: the first read of a NodeInfo keeps
   * the view current then, and every later read of the same NodeInfo gets that view. So Filter,
   * Score and the {@link FreeShareIndex} of one cycle see one view of each node, whatever the
   * informer or a binding changes meanwhile; every change of a view gives the node a new NodeInfo
   * (see {@link #wire}), so the next cycle sees the change. A NodeInfo made outside the scheduler
   * cache (generation 0: tests and tools) is never replaced, so it always reads the current view.
   */
  public NodeDevices node(NodeInfo node) {
    return PinnedViews.view(this, node);
  }

  /**
   * The node score before placement ({@link NodeDevices#nodeScore}) of the view {@link
   * #node(NodeInfo)} gives, read without reaching the view: Score reads it for thousands of nodes
   * per pod.
   */
  public float nodeScore(NodeInfo node) {
    return PinnedViews.nodeScore(this, node);
  }

  /** What a namespace's pods hold, for quotas (protocol §6.8); kept with every pod change. */
  public NamespaceUsage namespace(String name) {
    return namespaces.get(name);
  }

  /** The views of every known node (a point-in-time copy of the node set). */
  public List<NodeDevices> nodes() {
    List<NodeDevices> out = new ArrayList<>(nodes.size());
    for (NodeDeviceState s : nodes.values()) {
      out.add(s.view);
    }
    return out;
  }

  /** How many times a node's annotations turned unreadable (exported as a metric). */
  public long invalidNodeEvents() {
    return invalidNodes.events();
  }

  /** How many nodes currently have unreadable device annotations. */
  public long invalidNodes() {
    long n = 0;
    for (NodeDeviceState s : nodes.values()) {
      if (s.view.invalid() != null) {
        n++;
      }
    }
    return n;
  }

  /** Unreadable nodes now, keyed by {@code [vendor]} (for the gauge). */
  // NodeDeviceState's fields are guarded by this index's lock, which the check cannot tie to the
  // lock of a NodeDeviceState reached through a local.
  @SuppressWarnings("GuardedBy")
  public Map<List<String>, Long> unreadableByVendor() {
    Map<List<String>, Long> out = new HashMap<>();
    synchronized (lock) {
      for (NodeDeviceState s : nodes.values()) {
        if (s.registered.invalid() != null) {
          out.merge(List.of(s.registered.invalidVendor()), 1L, Long::sum);
        }
      }
    }
    return out;
  }

  /**
   * Marks a vendor's devices on a node unhealthy (or healthy again) on top of what the node's
   * annotations say, for health that only time reveals (an unanswered handshake).
   */
  // NodeDeviceState's fields are guarded by this index's lock, which the check cannot tie to the
  // lock of a NodeDeviceState reached through a local.
  @SuppressWarnings("GuardedBy")
  public void setVendorHealthy(String node, String vendor, boolean healthy) {
    NodeDeviceState s = state(node);
    synchronized (lock) {
      if (s.health.set(vendor, healthy)) {
        s.publish(changed);
      }
    }
  }

  /** Whether {@link #setVendorHealthy} marked the vendor unhealthy on the node. */
  // NodeDeviceState's fields are guarded by this index's lock, which the check cannot tie to the
  // lock of a NodeDeviceState reached through a local.
  @SuppressWarnings("GuardedBy")
  public boolean vendorMarkedUnhealthy(String node, String vendor) {
    NodeDeviceState s = nodes.get(node);
    if (s == null) {
      return false;
    }
    synchronized (lock) {
      return s.health.unhealthy(vendor);
    }
  }

  /** Node added or changed: re-read its registration when its annotations or status changed. */
  // NodeDeviceState's fields are guarded by this index's lock, which the check cannot tie to the
  // lock of a NodeDeviceState reached through a local.
  @SuppressWarnings("GuardedBy")
  public void upsertNode(Node node) {
    String name = node.getMetadata().getName();
    Object from = registrationInputs.of(node);
    NodeDeviceState s = state(name);
    synchronized (lock) {
      if (Objects.equals(from, s.registeredFrom)) {
        return;
      }
    }
    Registered r = nodeReader.read(node);
    boolean turnedInvalid;
    synchronized (lock) {
      turnedInvalid = InvalidNodes.turnsInvalid(s.registered, r);
      s.registered = r;
      s.registeredFrom = from;
      s.publish(changed);
    }
    if (turnedInvalid) {
      invalidNodes.turnedInvalid(node, r);
    }
  }

  /** Node deleted: its devices disappear; usage stays attributed in case it comes back. */
  // NodeDeviceState's fields are guarded by this index's lock, which the check cannot tie to the
  // lock of a NodeDeviceState reached through a local.
  @SuppressWarnings("GuardedBy")
  public void deleteNode(String name) {
    NodeDeviceState s = nodes.get(name);
    if (s == null) {
      return;
    }
    synchronized (lock) {
      s.registered = Registered.NONE;
      s.registeredFrom = null;
      s.publish(changed);
    }
  }

  /**
   * Pod added or changed: its usage follows its annotations (a reservation survives until then).
   */
  public void upsertPod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    Held held = podReader.read(pod);
    synchronized (lock) {
      PodEntry old = pods.get(uid);
      if (held == null) {
        if (old != null && !old.assumed()) {
          remove(uid, old);
        }
        return;
      }
      PodEntry now =
          new PodEntry(held.node(), pod.getMetadata().getNamespace(), held.usage(), false);
      if (old != null
          && old.node().equals(now.node())
          && Objects.equals(old.namespace(), now.namespace())
          && old.usage().equals(now.usage())) {
        if (old.assumed()) {
          pods.put(uid, now);
        }
        return;
      }
      if (old != null && old.assumed() && !bound(pod)) {
        // This scheduler's placement reaches the pod with its Binding: other annotations on an
        // unbound pod are an earlier attempt's, older than the reservation that replaced them.
        return;
      }
      if (old != null) {
        remove(uid, old);
      }
      add(uid, now);
    }
  }

  /** Whether the pod is bound to a node. */
  static boolean bound(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getNodeName() != null
        && !pod.getSpec().getNodeName().isEmpty();
  }

  /** Pod deleted. */
  public void deletePod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    if (uid != null) {
      release(uid);
    }
  }

  /**
   * Accounts a pod this scheduler placed, before its annotations are written. Replaces whatever the
   * pod held before.
   */
  public void reserve(String uid, String node, PodUsage usage) {
    reserve(uid, null, node, usage);
  }

  /**
   * {@link #reserve(String, String, PodUsage)} counted toward the pod's namespace. Releasing what
   * the pod held before (an earlier attempt) and counting the new placement are one change.
   */
  public IndexReservation reserve(
      String uid, @Nullable String namespace, String node, PodUsage usage) {
    synchronized (lock) {
      PodEntry old = pods.get(uid);
      if (old != null) {
        remove(uid, old);
      }
      PodEntry now = new PodEntry(node, namespace, usage, true);
      add(uid, now);
      return new IndexReservation(uid, now.counted(), old == null ? null : old.counted());
    }
  }

  /** Undoes {@link #reserve} unless the informer has since confirmed the pod's annotations. */
  public void unreserve(String uid) {
    synchronized (lock) {
      PodEntry old = pods.get(uid);
      if (old != null && old.assumed()) {
        remove(uid, old);
      }
    }
  }

  /**
   * Undoes a reservation while it is still what the index counts for the pod, and counts again what
   * it replaced: the pod still carries an earlier attempt's annotations. Once the informer has
   * confirmed or replaced the reservation, or the pod was deleted, nothing changes.
   */
  public void unreserve(IndexReservation r) {
    synchronized (lock) {
      PodEntry now = pods.get(r.uid());
      if (now == null || !now.counted().equals(r.reserved())) {
        return;
      }
      remove(r.uid(), now);
      Counted replaced = r.replaced();
      if (replaced != null) {
        add(r.uid(), PodEntry.of(replaced));
      }
    }
  }

  /** Drops whatever a pod holds (deleted). */
  public void release(String uid) {
    synchronized (lock) {
      PodEntry old = pods.get(uid);
      if (old != null) {
        remove(uid, old);
      }
    }
  }

  /** What the index counts for a pod, or null when it counts nothing for it. */
  public @Nullable Counted counted(String uid) {
    synchronized (lock) {
      PodEntry e = pods.get(uid);
      return e == null ? null : e.counted();
    }
  }

  /**
   * What the index counts for a pod and its node's view without it, or null when it counts nothing
   * for the pod. Changes nothing.
   */
  // NodeDeviceState's fields are guarded by this index's lock, which the check cannot tie to the
  // lock of a NodeDeviceState reached through a local.
  @SuppressWarnings("GuardedBy")
  public @Nullable CountedWithout countedWithout(String uid) {
    synchronized (lock) {
      PodEntry e = pods.get(uid);
      if (e == null) {
        return null;
      }
      NodeDeviceState s = nodes.get(e.node());
      NodeDevices view = s == null ? node(e.node()) : s.render(e.usage(), s.view.version());
      return new CountedWithout(uid, e.counted(), view);
    }
  }

  /**
   * What a pod holds according to its annotations, read as the informer path reads them (null when
   * it holds nothing, is terminal or its annotations cannot be read); the index is not changed.
   */
  @Nullable Held read(Pod pod) {
    return podReader.read(pod);
  }

  /** UIDs of the pods holding devices on a node (for diagnostics and tests). */
  public Collection<String> podsOn(String node) {
    synchronized (lock) {
      List<String> out = new ArrayList<>();
      pods.forEach(
          (uid, e) -> {
            if (e.node().equals(node)) {
              out.add(uid);
            }
          });
      return out;
    }
  }

  private NodeDeviceState state(String node) {
    return nodes.computeIfAbsent(node, n -> new NodeDeviceState(n, lock));
  }

  @GuardedBy("lock")
  private void add(String uid, PodEntry e) {
    pods.put(uid, e);
    apply(e, +1);
  }

  @GuardedBy("lock")
  private void remove(String uid, PodEntry e) {
    pods.remove(uid);
    apply(e, -1);
  }

  // NodeDeviceState's fields are guarded by this index's lock, which the check cannot tie to the
  // lock of a NodeDeviceState reached through a local.
  @SuppressWarnings("GuardedBy")
  @GuardedBy("lock")
  private void apply(PodEntry e, int sign) {
    if (e.usage().isEmpty()) {
      return;
    }
    NodeDeviceState s = state(e.node());
    if (e.namespace() != null) {
      namespaces.apply(e.namespace(), e.usage(), sign);
    }
    s.apply(e.usage(), sign);
    s.publish(changed);
  }
}
