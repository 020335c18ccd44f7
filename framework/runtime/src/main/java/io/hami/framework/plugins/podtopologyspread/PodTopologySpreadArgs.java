package io.hami.framework.plugins.podtopologyspread;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Arguments of {@link PodTopologySpreadPlugin}, as kube-scheduler's {@code PodTopologySpreadArgs}.
 *
 * @param defaultConstraints the constraints given to pods that have none of their own, when {@code
 *     defaultingType} is {@code List}; without labelSelector, since each pod's is deduced from the
 *     Services, ReplicationControllers, ReplicaSets and StatefulSets selecting it
 * @param defaultingType {@code System} (the built-in defaults: hostname with maxSkew 3 and zone
 *     with maxSkew 5, both ScheduleAnyway; {@code defaultConstraints} must then be empty) or {@code
 *     List} ({@code defaultConstraints}, possibly none)
 */
public record PodTopologySpreadArgs(
    List<TopologySpreadConstraint> defaultConstraints, String defaultingType)
    implements PluginArgs {

  public static final String SYSTEM_DEFAULTING = "System";
  public static final String LIST_DEFAULTING = "List";

  /** kube-scheduler's built-in default constraints, used with {@code System} defaulting. */
  public static final ImmutableList<TopologySpreadConstraint> SYSTEM_DEFAULT_CONSTRAINTS =
      ImmutableList.of(
          new TopologySpreadConstraintBuilder()
              .withTopologyKey(Constraint.HOSTNAME)
              .withWhenUnsatisfiable(Constraint.SCHEDULE_ANYWAY)
              .withMaxSkew(3)
              .build(),
          new TopologySpreadConstraintBuilder()
              .withTopologyKey(Constraint.ZONE)
              .withWhenUnsatisfiable(Constraint.SCHEDULE_ANYWAY)
              .withMaxSkew(5)
              .build());

  // A label name: an optional DNS subdomain prefix and '/', then a name of at most 63 characters.
  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern PREFIX =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public PodTopologySpreadArgs {
    defaultConstraints =
        defaultConstraints == null
            ? List.of()
            : Collections.unmodifiableList(new ArrayList<>(defaultConstraints));
  }

  /** System defaulting, no listed constraints: kube-scheduler's defaults. */
  public static PodTopologySpreadArgs defaults() {
    return new PodTopologySpreadArgs(List.of(), SYSTEM_DEFAULTING);
  }

  /** The constraints pods without their own get under these arguments. */
  public List<TopologySpreadConstraint> effectiveDefaultConstraints() {
    return SYSTEM_DEFAULTING.equals(defaultingType)
        ? SYSTEM_DEFAULT_CONSTRAINTS
        : defaultConstraints;
  }

  @Override
  public void validate(FieldErrors errors) {
    if (!SYSTEM_DEFAULTING.equals(defaultingType) && !LIST_DEFAULTING.equals(defaultingType)) {
      errors.add(
          "defaultingType",
          "Unsupported value: "
              + quote(defaultingType)
              + ": supported values: \"System\", \"List\"");
    } else if (SYSTEM_DEFAULTING.equals(defaultingType) && !defaultConstraints.isEmpty()) {
      errors.invalid("defaultingType", defaultingType, "when .defaultConstraints are not empty");
    }
    for (int i = 0; i < defaultConstraints.size(); i++) {
      FieldErrors e = errors.child("defaultConstraints[" + i + "]");
      TopologySpreadConstraint c = defaultConstraints.get(i);
      if (c == null) {
        e.required("");
        continue;
      }
      if (c.getMaxSkew() == null || c.getMaxSkew() <= 0) {
        e.invalid("maxSkew", c.getMaxSkew(), "not in valid range");
      }
      validateTopologyKey(e, c.getTopologyKey());
      String w = c.getWhenUnsatisfiable();
      if (w == null || w.isEmpty()) {
        e.add("whenUnsatisfiable", "Required value: can not be empty");
      } else if (!Constraint.DO_NOT_SCHEDULE.equals(w) && !Constraint.SCHEDULE_ANYWAY.equals(w)) {
        e.add(
            "whenUnsatisfiable",
            "Unsupported value: "
                + quote(w)
                + ": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
      }
      if (c.getMinDomains() != null && c.getMinDomains() <= 0) {
        e.invalid("minDomains", c.getMinDomains(), "must be greater than zero");
      }
      validatePolicy(e, "nodeAffinityPolicy", c.getNodeAffinityPolicy());
      validatePolicy(e, "nodeTaintsPolicy", c.getNodeTaintsPolicy());
      if (c.getLabelSelector() != null) {
        e.add(
            "labelSelector",
            "Forbidden: constraint must not define a selector, as they deduced for each pod");
      }
      for (int j = 0; j < i; j++) {
        TopologySpreadConstraint o = defaultConstraints.get(j);
        if (o != null
            && Objects.equals(o.getTopologyKey(), c.getTopologyKey())
            && Objects.equals(o.getWhenUnsatisfiable(), c.getWhenUnsatisfiable())) {
          errors.add(
              "defaultConstraints[" + i + "]",
              "Duplicate value: \"{"
                  + c.getTopologyKey()
                  + ", "
                  + c.getWhenUnsatisfiable()
                  + "}\"");
          break;
        }
      }
    }
  }

  private static void validateTopologyKey(FieldErrors e, @Nullable String key) {
    if (key == null || key.isEmpty()) {
      e.add("topologyKey", "Required value: can not be empty");
      return;
    }
    int slash = key.indexOf('/');
    String name = slash < 0 ? key : key.substring(slash + 1);
    String prefix = slash < 0 ? null : key.substring(0, slash);
    if (prefix != null && (prefix.isEmpty() || prefix.length() > 253)) {
      e.invalid("topologyKey", key, "prefix part must be non-empty and at most 253 characters");
    } else if (prefix != null && !PREFIX.matcher(prefix).matches()) {
      e.invalid(
          "topologyKey",
          key,
          "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
              + " characters, '-' or '.', and must start and end with an alphanumeric character");
    } else if (name.isEmpty() || name.length() > 63 || !NAME.matcher(name).matches()) {
      e.invalid(
          "topologyKey",
          key,
          "name part must consist of alphanumeric characters, '-', '_' or '.', must start and"
              + " end with an alphanumeric character and be at most 63 characters");
    }
  }

  private static void validatePolicy(FieldErrors e, String field, @Nullable String v) {
    if (v != null && !Constraint.HONOR.equals(v) && !Constraint.IGNORE.equals(v)) {
      e.add(field, "Unsupported value: " + quote(v) + ": supported values: \"Honor\", \"Ignore\"");
    }
  }

  private static String quote(@Nullable String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }
}
