package io.hami.plugins.vgpu;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hami.framework.api.ExcludedNodes;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.SnapshotCursor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The largest free GPU share of each node of the snapshot, per vendor: how many cards could take a
 * share at all (healthy, not cordoned, a free time slice), and the most free memory and cores on
 * any of them. A pod's PreFilter asks it which nodes certainly cannot hold the pod's GPU shape, and
 * the runtime then skips Filter on those nodes, so that the search for feasible nodes no longer
 * costs a Filter run for every full node.
 *
 * <p>Kept by snapshot position with the {@link NodeInfo} instance each entry was read from: a
 * refresh re-reads only the positions the snapshot replaced since the last one ({@link
 * SnapshotCursor}), or, when those are not known, compares references (a sequential pass over two
 * arrays) and re-reads the nodes whose instance changed. The device usage index reports every
 * change of a node's devices, which gives the node a new NodeInfo, so an entry is as current as the
 * snapshot. Each entry is read from the device view {@link DeviceUsageIndex#node(NodeInfo)} pins on
 * the NodeInfo: the view Filter and Score read for it in this cycle. A NodeInfo made outside the
 * scheduler cache (generation 0: tests, tools), which is never replaced, is read again on every
 * refresh.
 *
 * <p>Exact in one direction only: a node is reported when some vendor request of the pod (any
 * container) asks for more cards than the node has usable, more memory in MiB than its freest card,
 * or more cores than its most idle card. Each of these makes the device fit refuse the node
 * (requests only add usage from one container to the next), whatever the GPU policy, filters, NUMA
 * binding or quota. A node with a MIG-mode card of the vendor, whose one card can take several
 * instances, and a request by percentage of memory are never excluded on those grounds.
 *
 * <p>Concurrency: refreshed on the scheduling thread in PreFilter; the exclusion it returns is read
 * by the Filter fan-out of the same cycle, before the next refresh. Synchronized so that other
 * callers (tests) stay safe.
 */
final class FreeShareIndex {

  /** What a MIG-mode card offers: more than any request asks, so its node is never excluded. */
  private static final int ANY = Integer.MAX_VALUE;

  private final Function<NodeInfo, NodeDevices> views;

  @GuardedBy("this")
  private final Map<String, Integer> vendorSlots = new HashMap<>();

  @GuardedBy("this")
  private @Nullable NodeInfo[] nodes = new NodeInfo[0];

  // Positions read from a NodeInfo made outside the scheduler cache, which is never replaced.
  @GuardedBy("this")
  private boolean[] live = new boolean[0];

  @GuardedBy("this")
  private int liveCount;

  @GuardedBy("this")
  private final SnapshotCursor cursor = new SnapshotCursor();

  // [vendor slot][position]
  @GuardedBy("this")
  private int[][] usable = new int[0][];

  @GuardedBy("this")
  private int[][] freeMem = new int[0][];

  @GuardedBy("this")
  private int[][] freeCores = new int[0][];

  /**
   * @param views each node's device view for the cycle ({@link DeviceUsageIndex#node(NodeInfo)})
   */
  FreeShareIndex(Function<NodeInfo, NodeDevices> views) {
    this.views = views;
  }

  /**
   * Brings the index up to the snapshot (reading only the positions it replaced since the last
   * refresh, when it tracks them) and returns the positions the pod's requests certainly do not
   * fit, or null when no request gives grounds to exclude any node.
   */
  synchronized @Nullable ExcludedNodes refresh(Snapshot snapshot, PodRequests requests) {
    int[] replaced = cursor.advance(snapshot);
    List<NodeInfo> current = snapshot.nodes();
    if (replaced == null || current.size() != nodes.length || liveCount > 0) {
      return refresh(current, requests);
    }
    for (int i : replaced) {
      if (!update(i, current.get(i))) {
        reset(current.size());
        return refresh(current, requests);
      }
    }
    return excluding(requests);
  }

  /** {@link #refresh(Snapshot, PodRequests)}, comparing every position of {@code current}. */
  synchronized @Nullable ExcludedNodes refresh(List<NodeInfo> current, PodRequests requests) {
    int n = current.size();
    if (n != nodes.length) {
      reset(n);
    }
    for (int i = 0; i < n; i++) {
      if (!update(i, current.get(i))) {
        // A vendor seen for the first time: every entry lacks it, read them all again.
        reset(n);
        i = -1;
      }
    }
    return excluding(requests);
  }

  /** Reads the node at {@code i} if its NodeInfo changed; false when a vendor was added. */
  @GuardedBy("this")
  private boolean update(int i, NodeInfo node) {
    if (node == nodes[i] && !live[i]) {
      return true;
    }
    if (!read(i, views.apply(node))) {
      return false;
    }
    nodes[i] = node;
    boolean nowLive = node.generation() == 0;
    if (nowLive != live[i]) {
      liveCount += nowLive ? 1 : -1;
      live[i] = nowLive;
    }
    return true;
  }

  @GuardedBy("this")
  private void reset(int n) {
    nodes = new NodeInfo[n];
    live = new boolean[n];
    liveCount = 0;
    int v = vendorSlots.size();
    usable = new int[v][n];
    freeMem = new int[v][n];
    freeCores = new int[v][n];
  }

  /** Records a node's view at {@code pos}; false when it names a vendor without a slot yet. */
  @GuardedBy("this")
  private boolean read(int pos, NodeDevices view) {
    for (int v = 0; v < usable.length; v++) {
      usable[v][pos] = 0;
      freeMem[v][pos] = -1;
      freeCores[v][pos] = -1;
    }
    for (DeviceUsage d : view.devices()) {
      Integer slot = vendorSlots.get(d.vendor());
      if (slot == null) {
        vendorSlots.put(d.vendor(), vendorSlots.size());
        return false;
      }
      if (slot >= usable.length) {
        // Added by an earlier read whose entries were not reset yet.
        return false;
      }
      int v = slot;
      if (usable[v][pos] == ANY) {
        continue;
      }
      if (d.migMode()) {
        usable[v][pos] = ANY;
        freeMem[v][pos] = ANY;
        freeCores[v][pos] = ANY;
      } else if (d.healthy() && !d.cordoned() && d.freeSlots() > 0) {
        usable[v][pos]++;
        freeMem[v][pos] = Math.max(freeMem[v][pos], d.freeMemMiB());
        freeCores[v][pos] = Math.max(freeCores[v][pos], d.freeCores());
      }
    }
    return true;
  }

  /** One vendor request's least needs: cards, MiB on a card (0 when by percentage), cores. */
  private record Need(int slot, int cards, int memMiB, int cores) {}

  @GuardedBy("this")
  private @Nullable ExcludedNodes excluding(PodRequests requests) {
    List<Need> needs = new ArrayList<>();
    for (List<VendorRequest> container : requests.containers()) {
      for (VendorRequest r : container) {
        Integer slot = vendorSlots.get(r.vendor());
        if (slot == null) {
          // No node offers the vendor: Filter says so on each, with its own reason.
          return null;
        }
        needs.add(new Need(slot, r.nums(), r.memMiB(), r.clampedCores()));
      }
    }
    if (needs.isEmpty()) {
      return null;
    }
    Need[] all = needs.toArray(new Need[0]);
    int[][] u = usable;
    int[][] m = freeMem;
    int[][] c = freeCores;
    return pos -> {
      for (Need need : all) {
        int v = need.slot();
        if (u[v][pos] < need.cards() || m[v][pos] < need.memMiB() || c[v][pos] < need.cores()) {
          return true;
        }
      }
      return false;
    };
  }

  /** The positions excluded for {@code requests} as of the last refresh (for tests). */
  synchronized List<Integer> excludedPositions(PodRequests requests) {
    ExcludedNodes e = excluding(requests);
    List<Integer> out = new ArrayList<>();
    for (int i = 0; e != null && i < nodes.length; i++) {
      if (e.excluded(i)) {
        out.add(i);
      }
    }
    return out;
  }

  @Override
  public synchronized String toString() {
    return "FreeShareIndex{nodes=" + nodes.length + ", vendors=" + vendorSlots.keySet() + "}";
  }
}
