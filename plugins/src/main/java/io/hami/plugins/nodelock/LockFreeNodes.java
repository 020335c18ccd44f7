package io.hami.plugins.nodelock;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** What lock mode {@code scheduler} reads from Nodes and Pods. */
final class LockFreeNodes {
  private LockFreeNodes() {}

  /** Whether the node's agent finds the pod to serve without the node lock. */
  static boolean lockFree(@Nullable Node node) {
    Map<String, String> a = node == null ? null : node.getMetadata().getAnnotations();
    return a != null && "true".equals(a.get(Annotations.NODE_LOCK_FREE));
  }

  /**
   * When the pod was bound to wait for Allocate on its node ({@code bind-phase: allocating} on the
   * node its {@code vgpu-node} names, by its bind time); null when it does not wait or says no
   * time.
   */
  static @Nullable Instant waitingForAllocateSince(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (a == null
        || node == null
        || node.isEmpty()
        || !"allocating".equals(a.get(Annotations.BIND_PHASE))
        || !node.equals(a.get(Annotations.VGPU_NODE))
        || PodPhases.isGone(pod)) {
      return null;
    }
    try {
      return Instant.ofEpochSecond(
          Long.parseLong(a.getOrDefault(Annotations.BIND_TIME, "").trim()));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * Lock mode {@code scheduler} starts only when every node with registered devices is served by an
   * agent that needs no lock: a HAMi device plugin finds its pod through the lock.
   */
  static void refuseLockedNodes(KubernetesClient client) {
    List<String> locked = new ArrayList<>();
    for (Node n : client.nodes().list().getItems()) {
      Map<String, String> a = n.getMetadata().getAnnotations();
      if (a == null || lockFree(n)) {
        continue;
      }
      for (String key : a.keySet()) {
        if (key.startsWith("hami.io/node-") && key.endsWith("-register")) {
          locked.add(n.getMetadata().getName());
          break;
        }
      }
    }
    if (!locked.isEmpty()) {
      throw new IllegalArgumentException(
          "nodelock mode: scheduler: "
              + locked.size()
              + " node(s) register devices without "
              + Annotations.NODE_LOCK_FREE
              + "=\"true\", so their device plugin finds its pod through the node lock: "
              + String.join(", ", locked.subList(0, Math.min(10, locked.size())))
              + (locked.size() > 10 ? ", ..." : "")
              + "; run this project's node agent there, or use mode: node");
    }
  }
}
