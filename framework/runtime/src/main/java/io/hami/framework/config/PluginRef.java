package io.hami.framework.config;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * A plugin named in a plugin set.
 *
 * @param name the registered name, or {@code "*"} in a disabled list for "all defaults"
 * @param weight the score weight, null when not given
 */
public record PluginRef(String name, @Nullable Integer weight) {
  public static final String ALL = "*";

  public PluginRef {
    requireNonNull(name, "name");
  }

  public static PluginRef of(String name) {
    return new PluginRef(name, null);
  }

  public static PluginRef of(String name, int weight) {
    return new PluginRef(name, weight);
  }
}
