package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.model.device.MigPlacement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A "what if" on top of the {@link DeviceUsageIndex} for one cycle state: the devices of pods a
 * preemption dry run removed from their nodes or added to them, through {@code vgpu}'s
 * PreFilterExtensions. It travels in the state's {@link PodDeviceRequests#overlay()}, which Filter
 * reads anyway, so the scheduling cycle itself (no overlay) pays no extra lookup. Filter and Score
 * read a node's view through {@link #view}: the index's view, with these changes applied when the
 * state has an overlay. Namespace quota usage (protocol §6.8) follows the same changes.
 *
 * <p>Each pod is removed or added at most once: removing a pod the overlay added undoes the
 * addition, and adding a pod the overlay removed reprieves it.
 *
 * <p>The scheduling cycle of a pod the index still counts from an earlier attempt (an unbound pod
 * carrying HAMi annotations) has an overlay too, made by PreFilter: the cycle sees that node as the
 * index would show it without the pod ({@link #earlier}), and the namespace's quota usage without
 * it, while the index itself keeps counting it until Reserve replaces it.
 *
 * <p>Copy on write: AddPod and RemovePod change a {@link #copy()} and write it into the state in a
 * new {@link PodDeviceRequests}; an overlay is never changed once written, so copies of a {@link
 * CycleState} are isolated and Filter may read one from several threads.
 */
public final class UsageOverlay {

  /**
   * One pod's devices, released ({@code sign} -1) or counted (+1) by the dry run.
   *
   * @param node the node the devices are on
   * @param namespace the namespace whose quota usage they count toward, or null
   * @param usage what the pod holds on each device
   * @param sign -1 for a removed pod, +1 for an added one
   */
  record Change(String node, @Nullable String namespace, PodUsage usage, int sign) {
    Change {
      requireNonNull(node, "node");
      requireNonNull(usage, "usage");
    }
  }

  /** Changes by node, then by pod UID. */
  private final Map<String, Map<String, Change>> byNode;

  /** The node of each changed pod. */
  private final Map<String, String> nodeOf;

  /** The pod's own earlier accounting, which the cycle does not see, or null. */
  private final @Nullable CountedWithout earlier;

  UsageOverlay() {
    this(new HashMap<>(), new HashMap<>(), null);
  }

  private UsageOverlay(
      Map<String, Map<String, Change>> byNode,
      Map<String, String> nodeOf,
      @Nullable CountedWithout earlier) {
    this.byNode = byNode;
    this.nodeOf = nodeOf;
    this.earlier = earlier;
  }

  /**
   * An overlay without the pod's own earlier accounting: its node reads as {@code earlier}'s view
   * without the pod, its namespace's usage less what the pod held.
   */
  static UsageOverlay without(CountedWithout earlier) {
    return new UsageOverlay(new HashMap<>(), new HashMap<>(), earlier);
  }

  /** The pod's own earlier accounting this overlay leaves out, or null. */
  @Nullable CountedWithout earlier() {
    return earlier;
  }

  /**
   * The node's devices as the cycle of {@code state} sees them: the view of the index pinned on the
   * NodeInfo ({@link DeviceUsageIndex#node(NodeInfo)}), with the state's overlay applied when it
   * changes the node. Every plugin reading device usage in Filter, Score or Reserve reads it so, so
   * that a pod scheduled again and preemption's dry runs change what they all see alike.
   */
  public static NodeDevices view(CycleState state, DeviceUsageIndex index, NodeInfo node) {
    return view(of(state), index, node);
  }

  /**
   * The node's view under the state's overlay when the overlay changes it; null when the cycle sees
   * the pinned view as it is. For plugins that keep what they derive from a pinned view on its
   * NodeInfo: a changed view belongs to this cycle state alone.
   */
  public static @Nullable NodeDevices changedView(
      CycleState state, DeviceUsageIndex index, NodeInfo node) {
    UsageOverlay o = of(state);
    return o == null || !o.changes(node.name()) ? null : o.apply(index.node(node));
  }

  /**
   * {@link #view(CycleState, DeviceUsageIndex, NodeInfo)} for a node known by name (Reserve): the
   * view pinned on its NodeInfo in the cycle's {@code snapshot}, so that Reserve sees what Filter
   * and Score saw; for a node the snapshot lacks, the index's current view. The state's changes are
   * applied either way.
   */
  public static NodeDevices view(
      CycleState state, DeviceUsageIndex index, Snapshot snapshot, String node) {
    NodeInfo info = snapshot.get(node);
    UsageOverlay o = of(state);
    NodeDevices base = info == null ? index.node(node) : index.node(info);
    return o == null ? base : o.apply(base);
  }

  /** The pinned view of the node under {@code overlay}, when not null. */
  static NodeDevices view(@Nullable UsageOverlay overlay, DeviceUsageIndex index, NodeInfo node) {
    NodeDevices base = index.node(node);
    return overlay == null ? base : overlay.apply(base);
  }

  /** The overlay {@code vgpu} PreFilter, AddPod or RemovePod left in the state, or null. */
  private static @Nullable UsageOverlay of(CycleState state) {
    PodDeviceRequests r = state.get(VgpuPlugin.REQUESTS);
    return r == null ? null : r.overlay();
  }

  /** Whether the node reads differently under this overlay. */
  boolean changes(String node) {
    if (earlier != null && earlier.node().equals(node)) {
      return true;
    }
    Map<String, Change> m = byNode.get(node);
    return m != null && !m.isEmpty();
  }

  /** The change recorded for a pod, or null. */
  @Nullable Change change(String uid) {
    String node = nodeOf.get(uid);
    return node == null ? null : requireNonNull(byNode.get(node)).get(uid);
  }

  /** Whether nothing is changed. */
  boolean isEmpty() {
    return nodeOf.isEmpty() && earlier == null;
  }

  void put(String uid, Change c) {
    drop(uid);
    nodeOf.put(uid, c.node());
    byNode.computeIfAbsent(c.node(), k -> new LinkedHashMap<>()).put(uid, c);
  }

  void drop(String uid) {
    String node = nodeOf.remove(uid);
    if (node == null) {
      return;
    }
    Map<String, Change> m = requireNonNull(byNode.get(node));
    m.remove(uid);
    if (m.isEmpty()) {
      byNode.remove(node);
    }
  }

  /**
   * Whether a pod's devices are still being handed to it: the scheduler assumed it and the API has
   * not confirmed its binding, or the node agent has not answered the allocation ({@code
   * hami.io/bind-phase=allocating}). Such a pod keeps its devices in a dry run: freeing shares the
   * node agent may be configuring would let a preemptor bind onto them.
   */
  static boolean allocating(Pod pod, boolean assumed) {
    if (assumed) {
      return true;
    }
    Map<String, String> annos = pod.getMetadata().getAnnotations();
    return annos != null && BindPhase.ALLOCATING.wire().equals(annos.get(Annotations.BIND_PHASE));
  }

  /**
   * {@code current} with the changes on its node applied; {@code current} itself when there are
   * none. The node of the pod's earlier accounting starts instead from the view without it, read
   * with that accounting.
   */
  NodeDevices apply(NodeDevices current) {
    NodeDevices base =
        earlier != null && earlier.node().equals(current.node()) ? earlier.nodeWithout() : current;
    Map<String, Change> changes = byNode.get(base.node());
    if (changes == null || changes.isEmpty()) {
      return base;
    }
    Map<String, int[]> delta = new HashMap<>();
    Map<String, List<MigPlacement>> migAdded = new HashMap<>();
    Map<String, List<MigPlacement>> migRemoved = new HashMap<>();
    for (Change c : changes.values()) {
      c.usage()
          .byDevice()
          .forEach(
              (id, u) -> {
                int[] d = delta.computeIfAbsent(id, k -> new int[3]);
                d[0] += c.sign() * u.slots();
                d[1] += c.sign() * u.memMiB();
                d[2] += c.sign() * u.cores();
                if (!u.mig().isEmpty()) {
                  (c.sign() > 0 ? migAdded : migRemoved)
                      .computeIfAbsent(id, k -> new ArrayList<>())
                      .addAll(u.mig());
                }
              });
    }
    ImmutableList.Builder<DeviceUsage> b =
        ImmutableList.builderWithExpectedSize(base.devices().size());
    for (DeviceUsage d : base.devices()) {
      int[] dl = delta.get(d.id());
      if (dl == null) {
        b.add(d);
        continue;
      }
      // Never below zero: a pod the informer released after the dry run removed it is not freed
      // twice.
      DeviceUsage v =
          d.withUsage(
              Math.max(0, d.usedSlots() + dl[0]),
              Math.max(0, d.usedMemMiB() + dl[1]),
              Math.max(0, d.usedCores() + dl[2]));
      List<MigPlacement> removed = migRemoved.get(d.id());
      List<MigPlacement> added = migAdded.get(d.id());
      if (removed != null || added != null) {
        List<MigPlacement> held = new ArrayList<>(v.migUsed());
        if (removed != null) {
          for (MigPlacement at : removed) {
            held.remove(at);
          }
        }
        if (added != null) {
          held.addAll(added);
        }
        // A device the index marked unhealthy because MIG instances sit on a device shared through
        // hami-core stays so: the overlay cannot tell that mark from the node's own health.
        v = v.withMig(v.migProfiles(), held);
      }
      b.add(v);
    }
    return new NodeDevices(base.node(), b.build(), base.pairs(), base.invalid(), base.version());
  }

  /** A namespace's quota usage with the changes of its pods applied. */
  NamespaceUsage namespace(String ns, NamespaceUsage base) {
    NamespaceUsage u = base;
    if (earlier != null && ns.equals(earlier.counted().namespace())) {
      for (PodUsage.Usage d : earlier.counted().usage().byDevice().values()) {
        u = u.plus(d.vendor(), -d.memMiB(), -d.cores());
      }
    }
    for (Map<String, Change> changes : byNode.values()) {
      for (Change c : changes.values()) {
        if (!ns.equals(c.namespace())) {
          continue;
        }
        for (PodUsage.Usage d : c.usage().byDevice().values()) {
          u = u.plus(d.vendor(), (long) c.sign() * d.memMiB(), (long) c.sign() * d.cores());
        }
      }
    }
    return u;
  }

  /** A copy to change (the maps are copied; the changes themselves are immutable). */
  UsageOverlay copy() {
    Map<String, Map<String, Change>> nodes = new HashMap<>();
    byNode.forEach((node, m) -> nodes.put(node, new LinkedHashMap<>(m)));
    return new UsageOverlay(nodes, new HashMap<>(nodeOf), earlier);
  }
}
