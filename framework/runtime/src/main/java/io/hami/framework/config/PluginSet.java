package io.hami.framework.config;

import java.util.List;

/**
 * The plugins enabled and disabled at one extension point (or at every point, for {@code
 * multiPoint}). Enabled plugins run in list order after the defaults that remain.
 */
public record PluginSet(List<PluginRef> enabled, List<PluginRef> disabled) {
  private static final PluginSet EMPTY = new PluginSet(List.of(), List.of());

  public PluginSet {
    enabled = List.copyOf(enabled);
    disabled = List.copyOf(disabled);
  }

  public static PluginSet empty() {
    return EMPTY;
  }

  public static PluginSet enabled(PluginRef... refs) {
    return new PluginSet(List.of(refs), List.of());
  }

  public boolean disablesAll() {
    return disabled.stream().anyMatch(r -> PluginRef.ALL.equals(r.name()));
  }

  public boolean disables(String name) {
    return disabled.stream().anyMatch(r -> r.name().equals(name) || PluginRef.ALL.equals(r.name()));
  }
}
