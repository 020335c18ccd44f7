package io.hami.framework.config;

import io.hami.framework.api.PluginRegistration;
import java.util.Optional;

/**
 * The plugins a configuration may name, by name. The loader validates against it; the runtime's
 * registry is the implementation, so that config needs nothing from the runtime.
 */
public interface PluginCatalog {

  /** The plugin registered under {@code name}, with its argument type and defaults. */
  Optional<PluginRegistration<?>> get(String name);

  /** Whether a plugin is registered under {@code name}. */
  default boolean contains(String name) {
    return get(name).isPresent();
  }
}
