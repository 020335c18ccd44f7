package io.hami.model.config;

import io.hami.model.ProtocolError;
import java.util.List;

/**
 * A parsed and validated configuration, or every problem found in it.
 *
 * @param <T> the configuration type
 */
public sealed interface Validated<T> permits Validated.Valid, Validated.Invalid {

  /**
   * A valid configuration.
   *
   * @param value the configuration with defaults applied
   * @param warnings keys that were ignored, with their paths
   */
  record Valid<T>(T value, List<String> warnings) implements Validated<T> {
    public Valid {
      warnings = List.copyOf(warnings);
    }
  }

  /**
   * An invalid configuration.
   *
   * @param errors every bad field, each with its path and value
   */
  record Invalid<T>(List<ProtocolError> errors) implements Validated<T> {
    public Invalid {
      errors = List.copyOf(errors);
    }

    /** All errors, one per line. */
    public String describe() {
      StringBuilder b = new StringBuilder();
      for (ProtocolError e : errors) {
        if (b.length() > 0) {
          b.append('\n');
        }
        b.append(e.field()).append(": ").append(e.message());
      }
      return b.toString();
    }
  }

  /** Whether this is {@link Valid}. */
  default boolean isValid() {
    return this instanceof Valid;
  }
}
