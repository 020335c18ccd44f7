package io.hami.framework.runtime;

import static com.google.common.base.Preconditions.checkArgument;

import io.hami.framework.api.PluginRegistration;
import io.hami.framework.config.PluginCatalog;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The explicit name to factory map the scheduler builds its profiles from. Written in one place
 * (the command that starts the scheduler); a duplicate name fails fast. Not thread-safe while being
 * filled; read-only afterwards.
 */
public final class Registry implements PluginCatalog {
  private final Map<String, PluginRegistration<?>> byName = new LinkedHashMap<>();

  /** Adds a plugin. @throws IllegalArgumentException if the name is taken */
  public Registry register(PluginRegistration<?> registration) {
    PluginRegistration<?> previous = byName.putIfAbsent(registration.name(), registration);
    checkArgument(previous == null, "plugin %s is already registered", registration.name());
    return this;
  }

  @Override
  public Optional<PluginRegistration<?>> get(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  @Override
  public boolean contains(String name) {
    return byName.containsKey(name);
  }

  /** The registered names, in registration order. */
  public Set<String> names() {
    return Collections.unmodifiableSet(byName.keySet());
  }
}
