package io.hami.e2e.scenarios;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.model.Annotations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Why pods are still between states, as the API shows it: the pod's {@code PodScheduled} condition,
 * the latest Event about it and the scheduler's and node agent's annotations, so that a test that
 * ends with pods waiting says for each one what it last heard.
 */
final class PendingPods {
  private PendingPods() {}

  /** The {@code PodScheduled} condition of {@code p}, or null. */
  static @Nullable PodCondition scheduledCondition(Pod p) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return null;
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  /** Whether {@code p} is unbound and its condition says why: {@code PodScheduled=False}. */
  static boolean hasReason(Pod p) {
    PodCondition c = scheduledCondition(p);
    return c != null && "False".equals(c.getStatus()) && c.getReason() != null;
  }

  /**
   * One line per pod of {@code pods} that is still between states, oldest first, at most {@code
   * limit}: unbound without a reason (its age, condition, nomination, the latest Event about it and
   * its {@code hami.io/} annotations), or bound but not yet running (also its node and phase).
   */
  static List<String> describe(KubernetesClient client, List<Pod> pods, Instant now, int limit) {
    Map<String, Event> latest = new HashMap<>();
    if (!pods.isEmpty()) {
      String ns = pods.get(0).getMetadata().getNamespace();
      for (Event e : client.v1().events().inNamespace(ns).list().getItems()) {
        String uid = e.getInvolvedObject() == null ? null : e.getInvolvedObject().getUid();
        if (uid != null) {
          latest.merge(uid, e, (a, b) -> time(a).compareTo(time(b)) >= 0 ? a : b);
        }
      }
    }
    List<String> out = new ArrayList<>();
    pods.stream()
        .filter(PendingPods::between)
        .sorted(Comparator.comparing(p -> p.getMetadata().getCreationTimestamp()))
        .limit(limit)
        .forEach(p -> out.add(line(p, latest.get(p.getMetadata().getUid()), now)));
    return out;
  }

  /** Unbound without a reason, or bound but neither running nor rejected. */
  private static boolean between(Pod p) {
    if (p.getSpec().getNodeName() == null) {
      return !hasReason(p);
    }
    String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
    return !"Running".equals(phase) && !"Failed".equals(phase);
  }

  private static String line(Pod p, @Nullable Event event, Instant now) {
    StringBuilder b = new StringBuilder(p.getMetadata().getName());
    String created = p.getMetadata().getCreationTimestamp();
    if (created != null) {
      b.append(" age ")
          .append(Duration.between(Instant.parse(created), now).getSeconds())
          .append(" s");
    }
    if (p.getMetadata().getDeletionTimestamp() != null) {
      b.append(", deleting");
    }
    if (p.getSpec().getNodeName() != null) {
      b.append(", bound to ")
          .append(p.getSpec().getNodeName())
          .append(", phase ")
          .append(p.getStatus() == null ? null : p.getStatus().getPhase());
    }
    PodCondition c = scheduledCondition(p);
    b.append(", PodScheduled ")
        .append(
            c == null ? "none" : c.getStatus() + " " + c.getReason() + " (" + c.getMessage() + ")");
    String nominated = p.getStatus() == null ? null : p.getStatus().getNominatedNodeName();
    if (nominated != null) {
      b.append(", nominated ").append(nominated);
    }
    b.append(", last event ")
        .append(
            event == null
                ? "none"
                : event.getReason()
                    + " x"
                    + Objects.requireNonNullElse(event.getCount(), 1)
                    + " at "
                    + time(event)
                    + " ("
                    + event.getMessage()
                    + ")");
    Map<String, String> a = p.getMetadata().getAnnotations();
    if (a != null) {
      Map<String, String> hami = new TreeMap<>();
      a.forEach(
          (k, v) -> {
            if (k.startsWith(Annotations.PREFIX) && !k.equals(Annotations.SCHEDULE_EXPLAIN)) {
              hami.put(k, v);
            }
          });
      if (!hami.isEmpty()) {
        b.append(", ").append(hami);
      }
    }
    return b.toString();
  }

  private static String time(Event e) {
    return Objects.requireNonNullElse(
        e.getLastTimestamp(),
        Objects.requireNonNullElse(
            e.getEventTime() == null ? null : e.getEventTime().getTime(),
            Objects.requireNonNullElse(e.getMetadata().getCreationTimestamp(), "")));
  }
}
