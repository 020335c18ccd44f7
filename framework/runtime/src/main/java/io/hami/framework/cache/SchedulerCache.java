package io.hami.framework.cache;

import static com.google.common.base.Preconditions.checkState;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's view of nodes and of the pods placed on them, fed by informer events and by the
 * scheduler's own decisions (assume, forget).
 *
 * <p>Concurrency: all state is guarded by the cache's monitor. Informer threads add, update and
 * remove; the scheduling thread assumes and takes snapshots; binding threads finish bindings and
 * forget. Every change to a node bumps a cache-wide generation counter and moves the node to the
 * head of a recency list, so {@link #updateSnapshot} walks only the nodes changed since the
 * snapshot's generation: its cost grows with the changed nodes, not with the cluster.
 *
 * <p>Assumed pods: a pod the scheduler placed is counted on its node at once. The informer's add of
 * the bound pod confirms it. A pod whose binding finished but that the informer never confirmed is
 * forgotten after {@code assumedPodTtl} (zero: never), by {@link #cleanupExpiredAssumedPods}.
 */
public final class SchedulerCache {
  private static final Logger log = LoggerFactory.getLogger(SchedulerCache.class);

  private final InstantSource clock;
  private final Duration assumedPodTtl;
  private final Function<Pod, PodInfo> podInfos;

  @GuardedBy("this")
  private final Map<String, NodeItem> nodes = new LinkedHashMap<>();

  @GuardedBy("this")
  private final Map<String, PodState> pods = new HashMap<>();

  @GuardedBy("this")
  private @Nullable NodeItem head;

  @GuardedBy("this")
  private long generation;

  @GuardedBy("this")
  private long membershipVersion;

  @GuardedBy("this")
  private int assumedCount;

  private static final class NodeItem {
    final String name;
    @Nullable Node node;
    final LinkedHashMap<String, PodInfo> pods = new LinkedHashMap<>();
    long generation;
    @Nullable NodeInfo info;
    @Nullable NodeItem prev;
    @Nullable NodeItem next;

    NodeItem(String name) {
      this.name = name;
    }
  }

  private static final class PodState {
    PodInfo info;
    String nodeName;
    boolean assumed;
    @Nullable Instant deadline;

    PodState(PodInfo info, String nodeName, boolean assumed) {
      this.info = info;
      this.nodeName = nodeName;
      this.assumed = assumed;
    }
  }

  /**
   * @param podInfos derives a PodInfo (requests, ports) from a pod, possibly memoized
   */
  public SchedulerCache(
      InstantSource clock, Duration assumedPodTtl, Function<Pod, PodInfo> podInfos) {
    this.clock = clock;
    this.assumedPodTtl = assumedPodTtl;
    this.podInfos = podInfos;
  }

  public SchedulerCache(InstantSource clock) {
    this(clock, Duration.ZERO, PodInfo::of);
  }

  // ---- nodes

  public synchronized void addNode(Node node) {
    NodeItem item = nodes.get(node.getMetadata().getName());
    if (item == null) {
      item = new NodeItem(node.getMetadata().getName());
      nodes.put(item.name, item);
      membershipVersion++;
    } else if (item.node == null) {
      membershipVersion++;
    }
    item.node = node;
    touch(item);
  }

  public synchronized void updateNode(Node oldNode, Node newNode) {
    addNode(newNode);
  }

  /**
   * Removes a node. Pods still assigned to it stay accounted until they are deleted, so that a node
   * that comes back is not overcommitted.
   */
  public synchronized void removeNode(Node node) {
    NodeItem item = nodes.get(node.getMetadata().getName());
    if (item == null || item.node == null) {
      return;
    }
    item.node = null;
    membershipVersion++;
    if (item.pods.isEmpty()) {
      unlink(item);
      nodes.remove(item.name);
    } else {
      touch(item);
    }
  }

  // ---- pods

  /**
   * Counts a pod the scheduler placed on {@code nodeName}, before the API confirms. The pod object
   * is the pending one (no {@code spec.nodeName}); NodeInfo marks it {@link PodInfo#assumed()}.
   */
  public synchronized void assumePod(Pod pod, String nodeName) {
    String uid = pod.getMetadata().getUid();
    checkState(!pods.containsKey(uid), "pod %s is already in the cache", key(pod));
    PodInfo info = podInfos.apply(pod).withAssumed(true);
    pods.put(uid, new PodState(info, nodeName, true));
    assumedCount++;
    addToNode(nodeName, info);
  }

  /** Starts the expiry clock of an assumed pod once its binding succeeded. */
  public synchronized void finishBinding(Pod pod) {
    PodState s = pods.get(pod.getMetadata().getUid());
    if (s != null && s.assumed && assumedPodTtl.compareTo(Duration.ZERO) > 0) {
      s.deadline = clock.instant().plus(assumedPodTtl);
    }
  }

  /** Drops an assumed pod (its binding failed). Idempotent; confirmed pods are left alone. */
  public synchronized void forgetPod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    PodState s = pods.get(uid);
    if (s == null || !s.assumed) {
      return;
    }
    pods.remove(uid);
    assumedCount--;
    removeFromNode(s.nodeName, uid);
  }

  /** Adds an assigned pod from the informer; confirms it if it was assumed. */
  public synchronized void addPod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    String nodeName = pod.getSpec().getNodeName();
    PodState s = pods.get(uid);
    PodInfo info = podInfos.apply(pod);
    if (s != null) {
      if (s.assumed) {
        assumedCount--;
      }
      if (!s.nodeName.equals(nodeName)) {
        log.warn("pod {} was assumed on {} but is bound to {}", key(pod), s.nodeName, nodeName);
        removeFromNode(s.nodeName, uid);
      }
      s.info = info;
      s.nodeName = nodeName;
      s.assumed = false;
      s.deadline = null;
    } else {
      pods.put(uid, new PodState(info, nodeName, false));
    }
    addToNode(nodeName, info);
  }

  /** Applies an update of an assigned pod. */
  public synchronized void updatePod(Pod oldPod, Pod newPod) {
    addPod(newPod);
  }

  /** Removes an assigned pod (deleted, or finished running). */
  public synchronized void removePod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    PodState s = pods.remove(uid);
    if (s == null) {
      return;
    }
    if (s.assumed) {
      assumedCount--;
    }
    removeFromNode(s.nodeName, uid);
  }

  public synchronized boolean isAssumed(String uid) {
    PodState s = pods.get(uid);
    return s != null && s.assumed;
  }

  public synchronized boolean containsPod(String uid) {
    return pods.containsKey(uid);
  }

  /** Forgets assumed pods whose binding finished longer than the TTL ago. Returns how many. */
  public synchronized int cleanupExpiredAssumedPods() {
    if (assumedCount == 0) {
      return 0;
    }
    Instant now = clock.instant();
    List<Pod> expired = new ArrayList<>();
    for (PodState s : pods.values()) {
      if (s.assumed && s.deadline != null && !s.deadline.isAfter(now)) {
        expired.add(s.info.pod());
      }
    }
    for (Pod p : expired) {
      log.warn("assumed pod {} expired without confirmation; forgetting it", key(p));
      forgetPod(p);
    }
    return expired.size();
  }

  // ---- snapshot

  /**
   * Brings {@code snapshot} up to date, replacing only the NodeInfos changed since its last update;
   * rebuilds the node list only when nodes were added or removed.
   */
  public synchronized void updateSnapshot(CacheSnapshot snapshot) {
    int copied = 0;
    boolean membership = snapshot.membershipVersion != membershipVersion;
    for (NodeItem item = head; item != null; item = item.next) {
      if (item.generation <= snapshot.generation) {
        break;
      }
      if (item.node == null) {
        continue;
      }
      NodeInfo info = nodeInfo(item, item.node);
      copied++;
      if (!membership) {
        Integer i = snapshot.index.get(item.name);
        if (i == null) {
          membership = true;
        } else {
          snapshot.nodes.set(i, info);
          snapshot.logReplaced(i, generation);
        }
      }
    }
    if (membership) {
      snapshot.nodes.clear();
      snapshot.index.clear();
      for (NodeItem item : nodes.values()) {
        if (item.node != null) {
          snapshot.index.put(item.name, snapshot.nodes.size());
          snapshot.nodes.add(nodeInfo(item, item.node));
        }
      }
      snapshot.membershipVersion = membershipVersion;
      snapshot.nameRanks = null;
      snapshot.resetLog(generation);
    }
    snapshot.generation = generation;
    snapshot.lastUpdateCopied = copied;
  }

  private NodeInfo nodeInfo(NodeItem item, Node node) {
    NodeInfo info = item.info;
    if (info == null) {
      info = NodeInfo.of(node, item.pods.values()).withGeneration(item.generation);
      item.info = info;
    }
    return info;
  }

  public synchronized int nodeCount() {
    int n = 0;
    for (NodeItem i : nodes.values()) {
      if (i.node != null) {
        n++;
      }
    }
    return n;
  }

  public synchronized int podCount() {
    return pods.size();
  }

  public synchronized int assumedPodCount() {
    return assumedCount;
  }

  /**
   * Marks a node changed although neither it nor its pods did: state a plugin keeps for it
   * elsewhere changed, so the next snapshot holds a new NodeInfo (a new generation). Unknown nodes
   * are ignored.
   */
  public synchronized void touchNode(String name) {
    NodeItem item = nodes.get(name);
    if (item != null && item.node != null) {
      touch(item);
    }
  }

  /** Returns the current NodeInfo of a node, or null (for tests and diagnostics). */
  public synchronized @Nullable NodeInfo nodeInfo(String name) {
    NodeItem item = nodes.get(name);
    return item == null || item.node == null ? null : nodeInfo(item, item.node);
  }

  // ---- internals

  @GuardedBy("this")
  private void addToNode(String nodeName, PodInfo info) {
    NodeItem item = nodes.get(nodeName);
    if (item == null) {
      // The pod's node is not known yet; keep the pods until it arrives.
      item = new NodeItem(nodeName);
      nodes.put(nodeName, item);
    }
    item.pods.put(info.uid(), info);
    touch(item);
  }

  @GuardedBy("this")
  private void removeFromNode(String nodeName, String uid) {
    NodeItem item = nodes.get(nodeName);
    if (item == null) {
      return;
    }
    item.pods.remove(uid);
    if (item.node == null && item.pods.isEmpty()) {
      unlink(item);
      nodes.remove(nodeName);
      return;
    }
    touch(item);
  }

  @GuardedBy("this")
  private void touch(NodeItem item) {
    item.generation = ++generation;
    item.info = null;
    if (head == item) {
      return;
    }
    unlink(item);
    item.next = head;
    if (head != null) {
      head.prev = item;
    }
    head = item;
  }

  @GuardedBy("this")
  private void unlink(NodeItem item) {
    if (item.prev != null) {
      item.prev.next = item.next;
    }
    if (item.next != null) {
      item.next.prev = item.prev;
    }
    if (head == item) {
      head = item.next;
    }
    item.prev = null;
    item.next = null;
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
