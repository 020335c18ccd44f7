package io.hami.framework.local;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The in-memory cluster's pods by {@code namespace/name}, with a running count of bound ones. */
final class PodStore {
  private final Map<String, Pod> pods = new LinkedHashMap<>();
  // Kept in step with pods so drain() stays O(1) per call on large replays.
  private int boundPods;

  static String key(Pod pod) {
    String ns =
        pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
    return ns + "/" + pod.getMetadata().getName();
  }

  @Nullable Pod get(String key) {
    return pods.get(key);
  }

  boolean contains(String key) {
    return pods.containsKey(key);
  }

  void put(String key, Pod pod) {
    Pod old = pods.put(key, pod);
    if (old != null && isBound(old)) {
      boundPods--;
    }
    if (isBound(pod)) {
      boundPods++;
    }
  }

  @Nullable Pod remove(String key) {
    Pod old = pods.remove(key);
    if (old != null && isBound(old)) {
      boundPods--;
    }
    return old;
  }

  Collection<Pod> values() {
    return Collections.unmodifiableCollection(pods.values());
  }

  int size() {
    return pods.size();
  }

  int boundCount() {
    return boundPods;
  }

  private static boolean isBound(Pod p) {
    return p.getSpec() != null && p.getSpec().getNodeName() != null;
  }
}
