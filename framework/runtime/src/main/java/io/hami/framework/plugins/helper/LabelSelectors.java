package io.hami.framework.plugins.helper;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Matches labels against an API {@link LabelSelector} where a missing selector means "any". */
public final class LabelSelectors {
  private LabelSelectors() {}

  /**
   * Whether {@code labels} satisfy {@code selector}; a null selector matches everything, and a
   * malformed one (an unknown operator, values that do not fit it) nothing.
   */
  public static boolean matches(
      @Nullable LabelSelector selector, @Nullable Map<String, String> labels) {
    if (selector == null) {
      return true;
    }
    try {
      return Selector.of(selector, "selector").matches(labels);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
