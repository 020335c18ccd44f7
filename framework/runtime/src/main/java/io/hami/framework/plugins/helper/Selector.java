package io.hami.framework.plugins.helper;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedSet;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A compiled {@code metav1.LabelSelector} as Kubernetes evaluates one: requirements that must all
 * hold. {@link #NOTHING} (a missing selector) matches no labels; a selector without requirements
 * matches every label set and is {@link #isEmpty() empty} (some callers treat that case apart, as
 * kube-scheduler does). Equal when the requirements are, so that it can key cached results.
 * Immutable.
 */
public final class Selector {

  /** What a missing ({@code null}) label selector becomes: it matches nothing. */
  public static final Selector NOTHING = new Selector(ImmutableList.of(), true);

  /** A selector without requirements. */
  public static final Selector EVERYTHING = new Selector(ImmutableList.of(), false);

  /** A requirement's operator. */
  public enum Op {
    IN,
    NOT_IN,
    EXISTS,
    DOES_NOT_EXIST
  }

  /** One requirement; {@code values} is sorted, empty for EXISTS and DOES_NOT_EXIST. */
  public record Requirement(String key, Op op, ImmutableSortedSet<String> values) {
    public Requirement {
      requireNonNull(key, "key");
      requireNonNull(op, "op");
      requireNonNull(values, "values");
    }

    /** A requirement on one value of {@code key}: IN or NOT_IN. */
    public static Requirement of(String key, Op op, String value) {
      return new Requirement(key, op, ImmutableSortedSet.of(value));
    }

    public boolean matches(Map<String, String> labels) {
      String v = labels.get(key);
      return switch (op) {
        case IN -> v != null && values.contains(v);
        case NOT_IN -> v == null || !values.contains(v);
        case EXISTS -> v != null;
        case DOES_NOT_EXIST -> v == null;
      };
    }
  }

  private final ImmutableList<Requirement> requirements;
  private final boolean nothing;
  private final int hash;

  private Selector(ImmutableList<Requirement> requirements, boolean nothing) {
    this.requirements = requirements;
    this.nothing = nothing;
    this.hash = Objects.hash(requirements, nothing);
  }

  /**
   * Converts an API label selector.
   *
   * @param field the selector's path, for errors
   * @throws IllegalArgumentException naming {@code field} for an unknown operator or values that do
   *     not fit it
   */
  public static Selector of(@Nullable LabelSelector s, String field) {
    if (s == null) {
      return NOTHING;
    }
    List<Requirement> out = new ArrayList<>();
    Map<String, String> ml = s.getMatchLabels();
    if (ml != null) {
      for (Map.Entry<String, String> e : ml.entrySet()) {
        if (e.getKey() == null || e.getKey().isEmpty() || e.getValue() == null) {
          throw new IllegalArgumentException(
              field + ".matchLabels: invalid value " + e + ": key and value are required");
        }
        out.add(new Requirement(e.getKey(), Op.IN, ImmutableSortedSet.of(e.getValue())));
      }
    }
    List<LabelSelectorRequirement> exprs = s.getMatchExpressions();
    if (exprs != null) {
      for (int i = 0; i < exprs.size(); i++) {
        out.add(requirement(exprs.get(i), field + ".matchExpressions[" + i + "]"));
      }
    }
    return of(out);
  }

  private static Requirement requirement(@Nullable LabelSelectorRequirement r, String field) {
    if (r == null || r.getKey() == null || r.getKey().isEmpty()) {
      throw new IllegalArgumentException(field + ".key: required value");
    }
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    String op = r.getOperator();
    Op parsed;
    if ("In".equals(op)) {
      parsed = Op.IN;
    } else if ("NotIn".equals(op)) {
      parsed = Op.NOT_IN;
    } else if ("Exists".equals(op)) {
      parsed = Op.EXISTS;
    } else if ("DoesNotExist".equals(op)) {
      parsed = Op.DOES_NOT_EXIST;
    } else {
      throw new IllegalArgumentException(
          field
              + ".operator: invalid value \""
              + op
              + "\": must be one of In, NotIn, Exists, DoesNotExist");
    }
    boolean set = parsed == Op.IN || parsed == Op.NOT_IN;
    if (set && values.isEmpty()) {
      throw new IllegalArgumentException(
          field + ".values: for 'in', 'notin' operators, values set can't be empty");
    }
    if (!set && !values.isEmpty()) {
      throw new IllegalArgumentException(
          field + ".values: values set must be empty for exists and does not exist");
    }
    for (String v : values) {
      if (v == null) {
        throw new IllegalArgumentException(field + ".values: must not hold null");
      }
    }
    return new Requirement(r.getKey(), parsed, ImmutableSortedSet.copyOf(values));
  }

  /** A selector holding {@code labels} as equality requirements. */
  public static Selector ofLabels(Map<String, String> labels) {
    List<Requirement> out = new ArrayList<>(labels.size());
    labels.forEach(
        (k, v) -> {
          // Objects from the API never hold null here; a malformed one selects by "".
          if (k != null) {
            out.add(new Requirement(k, Op.IN, ImmutableSortedSet.of(v == null ? "" : v)));
          }
        });
    return of(out);
  }

  /** A selector holding {@code reqs}; {@link #EVERYTHING} when there are none. */
  public static Selector of(List<Requirement> reqs) {
    if (reqs.isEmpty()) {
      return EVERYTHING;
    }
    List<Requirement> sorted = new ArrayList<>(reqs);
    sorted.sort((a, b) -> a.key().compareTo(b.key()));
    return new Selector(ImmutableList.copyOf(sorted), false);
  }

  /**
   * This selector with {@code more} requirements ANDed; {@link #NOTHING} stays nothing, as
   * kube-scheduler's merge of matchLabelKeys leaves a selector without requirements alone.
   */
  public Selector and(Selector more) {
    if (nothing || more.nothing) {
      return nothing ? this : more;
    }
    if (more.requirements.isEmpty()) {
      return this;
    }
    List<Requirement> all = new ArrayList<>(requirements);
    all.addAll(more.requirements);
    return of(all);
  }

  /** Whether {@code labels} (null: none) satisfy every requirement. */
  public boolean matches(@Nullable Map<String, String> labels) {
    if (nothing) {
      return false;
    }
    Map<String, String> l = labels == null ? Map.of() : labels;
    for (int i = 0; i < requirements.size(); i++) {
      if (!requirements.get(i).matches(l)) {
        return false;
      }
    }
    return true;
  }

  /** Whether this selector has no requirements (and is not {@link #NOTHING}). */
  public boolean isEmpty() {
    return !nothing && requirements.isEmpty();
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o == this
        || (o instanceof Selector s
            && hash == s.hash
            && nothing == s.nothing
            && requirements.equals(s.requirements));
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return nothing ? "<nothing>" : requirements.toString();
  }
}
