package io.hami.framework.queue;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.PodInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The pods nominated to nodes: pending pods for which preemption made room on a node, or whose
 * {@code status.nominatedNodeName} the informer delivered (after a restart, or set by another
 * replica). Filter counts a node's nominated pods of at least the scheduled pod's priority as if
 * they ran there, so that the room made for them is not taken by others (kube-scheduler's
 * nominator).
 *
 * <p>A nomination ends when the pod is assumed or bound, deleted, nominated elsewhere, or when an
 * update clears its {@code status.nominatedNodeName}. An informer update that leaves both the old
 * and new {@code status.nominatedNodeName} empty keeps a nomination the scheduler made itself (its
 * status write may not have arrived yet).
 *
 * <p>Concurrency: written by the informer thread and the scheduling thread, read by Filter threads;
 * all state is guarded by this object's lock. {@link #isEmpty} is a volatile read, so a cluster
 * without nominations costs the scheduling cycle nothing more.
 */
public final class Nominator {
  private final Function<Pod, PodInfo> podInfos;

  @GuardedBy("this")
  private final Map<String, List<PodInfo>> byNode = new HashMap<>();

  @GuardedBy("this")
  private final Map<String, String> nodeByUid = new HashMap<>();

  private volatile int size;

  /**
   * @param podInfos derives a pod's info (its requests), memoized by the caller
   */
  public Nominator(Function<Pod, PodInfo> podInfos) {
    this.podInfos = requireNonNull(podInfos);
  }

  /** Whether no pod is nominated anywhere. */
  public boolean isEmpty() {
    return size == 0;
  }

  /** Nominates {@code pod} to {@code nodeName}, replacing any earlier nomination; "" removes. */
  public void add(Pod pod, String nodeName) {
    PodInfo info;
    try {
      info = podInfos.apply(pod);
    } catch (IllegalArgumentException e) {
      // An unparsable request: such a pod never fits anywhere, so holding room for it is moot.
      remove(uid(pod));
      return;
    }
    add(info, nodeName);
  }

  /** Nominates {@code info}'s pod to {@code nodeName}, replacing any earlier nomination. */
  public synchronized void add(PodInfo info, String nodeName) {
    String uid = info.uid();
    removeLocked(uid);
    if (nodeName.isEmpty() || isAssigned(info.pod())) {
      return;
    }
    nodeByUid.put(uid, nodeName);
    byNode.computeIfAbsent(nodeName, n -> new ArrayList<>()).add(info);
    size = nodeByUid.size();
  }

  /** Nominates {@code pod} where its {@code status.nominatedNodeName} says, if anywhere. */
  public void addFromStatus(Pod pod) {
    String nnn = statusNomination(pod);
    if (nnn != null) {
      add(pod, nnn);
    }
  }

  /**
   * Follows an informer update of an unassigned pod: the new status decides, except that a
   * nomination made here survives an update in which both versions have no {@code
   * nominatedNodeName}.
   */
  public void update(Pod oldPod, Pod newPod) {
    String keep = null;
    if (statusNomination(oldPod) == null && statusNomination(newPod) == null) {
      keep = nominatedNode(uid(oldPod));
    }
    if (keep != null) {
      add(newPod, keep);
    } else {
      remove(uid(oldPod));
      addFromStatus(newPod);
    }
  }

  /** Drops the nomination of the pod of {@code uid}, if any. */
  public synchronized void remove(String uid) {
    removeLocked(uid);
  }

  @GuardedBy("this")
  private void removeLocked(String uid) {
    String node = nodeByUid.remove(uid);
    if (node == null) {
      return;
    }
    List<PodInfo> pods = byNode.get(node);
    if (pods != null) {
      pods.removeIf(p -> uid.equals(p.uid()));
      if (pods.isEmpty()) {
        byNode.remove(node);
      }
    }
    size = nodeByUid.size();
  }

  /** The node the pod of {@code uid} is nominated to, or null. */
  public synchronized @Nullable String nominatedNode(String uid) {
    return nodeByUid.get(uid);
  }

  /** The pods nominated to {@code nodeName}, in nomination order. */
  public List<PodInfo> nominatedPods(String nodeName) {
    if (size == 0) {
      return List.of();
    }
    synchronized (this) {
      List<PodInfo> pods = byNode.get(nodeName);
      return pods == null ? List.of() : List.copyOf(pods);
    }
  }

  /** How many pods are nominated. */
  public int size() {
    return size;
  }

  private static @Nullable String statusNomination(Pod pod) {
    String n = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    return n == null || n.isEmpty() ? null : n;
  }

  private static boolean isAssigned(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getNodeName() != null
        && !pod.getSpec().getNodeName().isEmpty();
  }

  private static String uid(Pod pod) {
    return pod.getMetadata().getUid();
  }
}
