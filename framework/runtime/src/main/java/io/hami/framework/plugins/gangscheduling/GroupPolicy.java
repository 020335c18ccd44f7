package io.hami.framework.plugins.gangscheduling;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.PodGroup;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** A pod group's scheduling policy, as this scheduler implements it. */
sealed interface GroupPolicy {

  /** {@code basic}: the pods are scheduled one by one. */
  enum Basic implements GroupPolicy {
    INSTANCE
  }

  /** {@code gang}: all or nothing, once {@code minCount} pods have a place. */
  record Gang(int minCount) implements GroupPolicy {}

  /** The group asks for something this scheduler does not do, or is malformed. */
  record Invalid(String message) implements GroupPolicy {}

  /** The policy of the pod's annotation group. */
  static GroupPolicy of(Membership.Member m) {
    return new Gang(m.minAvailable());
  }

  /**
   * The policy of PodGroup {@code g} for member {@code pod}. Fields that change the scheduling
   * decision and that this scheduler does not implement make the policy invalid, naming the field:
   * the group is never scheduled as if they were not there.
   */
  static GroupPolicy of(PodGroup g, Pod pod) {
    String what = "PodGroup " + g.getMetadata().getNamespace() + "/" + g.getMetadata().getName();
    PodGroup.Spec spec = g.getSpec();
    if (spec == null || spec.getSchedulingPolicy() == null) {
      return new Invalid(what + ": spec.schedulingPolicy must be set");
    }
    for (Map.Entry<String, Object> e : spec.getOther().entrySet()) {
      String refusal = unsupported(e.getKey(), e.getValue());
      if (refusal != null) {
        return new Invalid(what + ": " + refusal);
      }
    }
    Integer priority = spec.getPriority();
    Integer podPriority = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    if (priority != null && !priority.equals(podPriority == null ? 0 : podPriority)) {
      return new Invalid(
          what
              + ": spec.priority="
              + priority
              + " differs from the pod's priority "
              + (podPriority == null ? 0 : podPriority)
              + "; a group priority is not supported by this scheduler");
    }
    PodGroup.SchedulingPolicy p = spec.getSchedulingPolicy();
    if (!p.getOther().isEmpty()) {
      return new Invalid(
          what
              + ": spec.schedulingPolicy."
              + p.getOther().keySet().iterator().next()
              + " is not supported by this scheduler");
    }
    if (p.getBasic() != null && p.getGang() != null) {
      return new Invalid(what + ": spec.schedulingPolicy sets both basic and gang; set one");
    }
    if (p.getBasic() != null) {
      return Basic.INSTANCE;
    }
    PodGroup.GangPolicy gang = p.getGang();
    if (gang == null) {
      return new Invalid(what + ": spec.schedulingPolicy sets neither basic nor gang; set one");
    }
    if (!gang.getOther().isEmpty()) {
      return new Invalid(
          what
              + ": spec.schedulingPolicy.gang."
              + gang.getOther().keySet().iterator().next()
              + " is not supported by this scheduler");
    }
    Integer min = gang.getMinCount();
    if (min == null || min < 1) {
      return new Invalid(
          what + ": spec.schedulingPolicy.gang.minCount=" + min + " must be a positive integer");
    }
    return new Gang(min);
  }

  /** Why spec field {@code name} set to {@code value} is refused, or null when it is fine. */
  private static @Nullable String unsupported(String name, Object value) {
    if (isUnset(value)) {
      return null;
    }
    return switch (name) {
      // Where the group came from, and the class its priority was resolved from: no decision.
      case "podGroupTemplateRef", "priorityClassName" -> null;
      case "disruptionMode" ->
          Objects.equals(value, "Pod")
              ? null
              : "spec.disruptionMode=" + value + " is not supported by this scheduler";
      default -> "spec." + field(name, value) + " is not supported by this scheduler";
    };
  }

  /**
   * The path of the first field set within {@code value}: {@code schedulingConstraints.topology}.
   */
  private static String field(String name, Object value) {
    if (value instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!isUnset(e.getValue())) {
          return name + "." + e.getKey();
        }
      }
    }
    return name;
  }

  private static boolean isUnset(@Nullable Object value) {
    return value == null
        || (value instanceof Collection<?> c && c.isEmpty())
        || (value instanceof Map<?, ?> m && m.isEmpty());
  }
}
