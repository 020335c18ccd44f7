package io.hami.framework.plugins.interpodaffinity;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A compiled {@code metav1.LabelSelector}: {@code matchLabels} and {@code matchExpressions}, all of
 * which must hold. As in Kubernetes, a null selector matches nothing and an empty one everything.
 */
final class Selector {
  static final Selector NOTHING = new Selector(ImmutableList.of(), true);
  static final Selector EVERYTHING = new Selector(ImmutableList.of(), false);

  enum Op {
    IN,
    NOT_IN,
    EXISTS,
    DOES_NOT_EXIST
  }

  /** One requirement on a label. */
  record Requirement(String key, Op op, ImmutableSet<String> values) {
    boolean matches(Map<String, String> labels) {
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

  private Selector(ImmutableList<Requirement> requirements, boolean nothing) {
    this.requirements = requirements;
    this.nothing = nothing;
  }

  /** Thrown for a selector Kubernetes would reject; the message names the field and value. */
  static final class InvalidSelectorException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidSelectorException(String message) {
      super(message);
    }
  }

  /**
   * Compiles {@code selector} with extra requirements appended (from {@code matchLabelKeys} and
   * {@code mismatchLabelKeys}).
   *
   * @param field the selector's path, for error messages
   * @throws InvalidSelectorException for an unknown operator or values that do not fit it
   */
  static Selector compile(@Nullable LabelSelector selector, List<Requirement> extra, String field)
      throws InvalidSelectorException {
    if (selector == null) {
      return NOTHING;
    }
    ImmutableList.Builder<Requirement> b = ImmutableList.builder();
    Map<String, String> ml = selector.getMatchLabels();
    if (ml != null) {
      for (Map.Entry<String, String> e : ml.entrySet()) {
        if (e.getKey() == null || e.getKey().isEmpty() || e.getValue() == null) {
          throw new InvalidSelectorException(
              field + ".matchLabels: invalid entry " + e.getKey() + "=" + e.getValue());
        }
        b.add(new Requirement(e.getKey(), Op.IN, ImmutableSet.of(e.getValue())));
      }
    }
    List<LabelSelectorRequirement> exprs = selector.getMatchExpressions();
    if (exprs != null) {
      for (int i = 0; i < exprs.size(); i++) {
        b.add(requirement(exprs.get(i), field + ".matchExpressions[" + i + "]"));
      }
    }
    b.addAll(extra);
    ImmutableList<Requirement> all = b.build();
    return all.isEmpty() ? EVERYTHING : new Selector(all, false);
  }

  private static Requirement requirement(@Nullable LabelSelectorRequirement r, String field)
      throws InvalidSelectorException {
    if (r == null) {
      throw new InvalidSelectorException(field + ": must not be null");
    }
    if (r.getKey() == null || r.getKey().isEmpty()) {
      throw new InvalidSelectorException(field + ".key: required value");
    }
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    String op = r.getOperator();
    Op o;
    if ("In".equals(op)) {
      o = Op.IN;
    } else if ("NotIn".equals(op)) {
      o = Op.NOT_IN;
    } else if ("Exists".equals(op)) {
      o = Op.EXISTS;
    } else if ("DoesNotExist".equals(op)) {
      o = Op.DOES_NOT_EXIST;
    } else {
      throw new InvalidSelectorException(
          field
              + ".operator: invalid value \""
              + op
              + "\": must be one of In, NotIn, Exists, DoesNotExist");
    }
    boolean needsValues = o == Op.IN || o == Op.NOT_IN;
    if (needsValues && values.isEmpty()) {
      throw new InvalidSelectorException(field + ".values: must be non-empty for operator " + op);
    }
    if (!needsValues && !values.isEmpty()) {
      throw new InvalidSelectorException(field + ".values: must be empty for operator " + op);
    }
    for (String v : values) {
      if (v == null) {
        throw new InvalidSelectorException(field + ".values: must not contain null");
      }
    }
    return new Requirement(r.getKey(), o, ImmutableSet.copyOf(values));
  }

  boolean matches(Map<String, String> labels) {
    if (nothing) {
      return false;
    }
    for (int i = 0; i < requirements.size(); i++) {
      if (!requirements.get(i).matches(labels)) {
        return false;
      }
    }
    return true;
  }

  /** Whether this selector matches every label set. */
  boolean isEverything() {
    return !nothing && requirements.isEmpty();
  }
}
