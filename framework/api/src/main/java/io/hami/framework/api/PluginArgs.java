package io.hami.framework.api;

/**
 * Typed arguments of a plugin, decoded from {@code pluginConfig[].args}. Implement as a record
 * whose components are the YAML fields. The runtime starts from the registered defaults, applies
 * the fields the user gave, then calls {@link #validate}; a profile with any error is not built.
 */
public interface PluginArgs {

  /** Adds an error for every invalid field, with paths relative to {@code args}. */
  default void validate(FieldErrors errors) {}
}
