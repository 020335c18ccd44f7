package io.hami.framework.queue;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Which updates of a queued pod can change its scheduling result. */
final class PodUpdates {
  private PodUpdates() {}

  /**
   * Whether the update can change the scheduling result: spec, labels or annotations other than
   * {@code own}, the ones the scheduler itself writes on the pod when an attempt fails. Their echo
   * from the informer is the scheduler's own write, not news about the pod: were it to count, every
   * failure whose message changed would retry the pod at once (kube-scheduler, which writes only
   * the pod's status, ignores status changes for the same reason).
   */
  static boolean isRelevant(Pod a, Pod b, Set<String> own) {
    return !Objects.equals(a.getSpec(), b.getSpec())
        || !Objects.equals(a.getMetadata().getLabels(), b.getMetadata().getLabels())
        || !Objects.equals(
            withoutKeys(a.getMetadata().getAnnotations(), own),
            withoutKeys(b.getMetadata().getAnnotations(), own));
  }

  private static Map<String, String> withoutKeys(
      @Nullable Map<String, String> m, Set<String> keys) {
    if (m == null || m.isEmpty()) {
      return Map.of();
    }
    if (keys.isEmpty()) {
      return m;
    }
    Map<String, String> out = new HashMap<>(m);
    out.keySet().removeAll(keys);
    return out;
  }
}
