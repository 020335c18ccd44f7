package io.hami.framework.local;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the in-memory API server stamps on the objects it stores: resourceVersions from a counter,
 * and times (creation, conditions) from the cluster's clock.
 */
final class ObjectStamps {
  private final ManualClock clock;
  private long resourceVersion;
  private @Nullable Instant nowAt;
  private String nowText = "";

  ObjectStamps(ManualClock clock) {
    this.clock = clock;
  }

  String nextVersion() {
    return Long.toString(++resourceVersion);
  }

  /** The clock's time as RFC 3339 text, formatted once per instant (the clock moves rarely). */
  String now() {
    Instant t = clock.instant();
    if (!t.equals(nowAt)) {
      nowAt = t;
      nowText = t.toString();
    }
    return nowText;
  }

  /** A new version of {@code pod}: copied metadata (new resourceVersion) and status. */
  Pod newVersion(Pod pod) {
    Pod p = ShallowCopy.of(pod);
    p.setMetadata(ShallowCopy.of(pod.getMetadata()));
    p.getMetadata().setResourceVersion(nextVersion());
    p.setStatus(pod.getStatus() == null ? new PodStatus() : ShallowCopy.of(pod.getStatus()));
    return p;
  }

  /** Replaces the pod's condition of {@code type}, stamped with the clock's time. */
  void setCondition(
      Pod pod, String type, String status, @Nullable String reason, @Nullable String message) {
    if (pod.getStatus() == null) {
      pod.setStatus(new PodStatus());
    }
    List<PodCondition> conditions = new ArrayList<>();
    if (pod.getStatus().getConditions() != null) {
      for (PodCondition c : pod.getStatus().getConditions()) {
        if (!type.equals(c.getType())) {
          conditions.add(c);
        }
      }
    }
    conditions.add(
        new PodConditionBuilder()
            .withType(type)
            .withStatus(status)
            .withReason(reason)
            .withMessage(message)
            .withLastTransitionTime(now())
            .build());
    pod.getStatus().setConditions(conditions);
  }

  /** {@code base} (may be null) with {@code extra} put over it, as a metadata patch merges maps. */
  static Map<String, String> merged(@Nullable Map<String, String> base, Map<String, String> extra) {
    Map<String, String> m = base == null ? new LinkedHashMap<>() : new LinkedHashMap<>(base);
    m.putAll(extra);
    return m;
  }
}
