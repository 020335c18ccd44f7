package io.hami.framework.config;

import java.util.List;

/** A configuration that failed to parse or validate; carries every error found, with paths. */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final List<String> errors;

  public ConfigException(String source, List<String> errors) {
    super(source + ": " + errors.size() + " error(s):\n  " + String.join("\n  ", errors));
    this.errors = List.copyOf(errors);
  }

  public List<String> errors() {
    return errors;
  }
}
