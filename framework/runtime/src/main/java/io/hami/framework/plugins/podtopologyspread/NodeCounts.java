package io.hami.framework.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeLocal;
import io.hami.framework.api.PodInfo;
import io.hami.framework.plugins.helper.Selector;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The number of pods on one node that a selector matches in a namespace, kept on the NodeInfo
 * ({@link NodeLocal}): replicas of one workload ask every node the same question each cycle, and a
 * NodeInfo is replaced whenever its pods change, so only the nodes that changed are counted again.
 */
final class NodeCounts {
  private static final NodeLocal<NodeCounts> SLOT =
      NodeLocal.create("PodTopologySpread matching pods");
  // Counting one pod is no dearer than looking the count up; matching two or more is (a label
  // lookup and a sorted-set search per requirement and pod).
  private static final int COUNT_DIRECTLY = 1;
  // Selectors are few at a time (one or two per workload); past this the cache starts over.
  private static final int MAX_KEYS = 32;

  /** What a count is kept under: make it once per cycle with {@link #key}. */
  record Key(String namespace, Selector selector) {}

  private final Map<Key, Integer> counts = new ConcurrentHashMap<>();

  private NodeCounts() {}

  /**
   * The pods on {@code node} in {@code namespace} that {@code selector} matches, terminating pods
   * left out; 0 for an empty selector, as kube-scheduler counts.
   */
  static int count(NodeInfo node, Selector selector, String namespace) {
    return count(node, key(selector, namespace));
  }

  static Key key(Selector selector, String namespace) {
    return new Key(namespace, selector);
  }

  /** {@link #count(NodeInfo, Selector, String)} under a key made once for many nodes. */
  static int count(NodeInfo node, Key key) {
    List<PodInfo> pods = node.pods();
    Selector selector = key.selector();
    String namespace = key.namespace();
    if (selector.isEmpty() || pods.isEmpty()) {
      return 0;
    }
    if (pods.size() <= COUNT_DIRECTLY) {
      return countPods(pods, selector, namespace);
    }
    NodeCounts c = node.local(SLOT);
    if (c == null) {
      c = new NodeCounts();
      node.setLocal(SLOT, c);
    }
    Integer n = c.counts.get(key);
    if (n == null) {
      n = countPods(pods, selector, namespace);
      if (c.counts.size() >= MAX_KEYS) {
        c.counts.clear();
      }
      c.counts.put(key, n);
    }
    return n;
  }

  private static int countPods(List<PodInfo> pods, Selector selector, String namespace) {
    int n = 0;
    for (PodInfo p : pods) {
      if (matches(p.pod(), selector, namespace)) {
        n++;
      }
    }
    return n;
  }

  /** Whether {@code pod} counts for {@code selector} in {@code namespace}. */
  static boolean matches(Pod pod, Selector selector, String namespace) {
    String ns = pod.getMetadata().getNamespace();
    return pod.getMetadata().getDeletionTimestamp() == null
        && namespace.equals(ns == null ? "" : ns)
        && selector.matches(pod.getMetadata().getLabels());
  }
}
