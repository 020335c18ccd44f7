package io.hami.framework.plugins.helper;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Matches labels against a {@link LabelSelector}: every {@code matchLabels} entry and every
 * expression must hold; an expression with an unknown operator never matches.
 */
public final class LabelSelectors {
  private LabelSelectors() {}

  /** Whether {@code labels} satisfy {@code selector}; a null selector matches everything. */
  public static boolean matches(
      @Nullable LabelSelector selector, @Nullable Map<String, String> labels) {
    if (selector == null) {
      return true;
    }
    Map<String, String> have = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(have.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!matches(r, have)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean matches(LabelSelectorRequirement r, Map<String, String> labels) {
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    boolean present = labels.containsKey(r.getKey());
    String op = r.getOperator() == null ? "" : r.getOperator();
    return switch (op) {
      case "In" -> present && values.contains(labels.get(r.getKey()));
      case "NotIn" -> !present || !values.contains(labels.get(r.getKey()));
      case "Exists" -> present;
      case "DoesNotExist" -> !present;
      default -> false;
    };
  }
}
