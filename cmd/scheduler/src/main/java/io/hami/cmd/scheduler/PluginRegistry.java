package io.hami.cmd.scheduler;

import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.plugins.GpuPlugins;

/**
 * The one place that names every plugin the scheduler can run: the built-in, GPU-agnostic ones and
 * the GPU plugins. Profiles enable them by name.
 */
public final class PluginRegistry {
  private PluginRegistry() {}

  /** A new registry with every plugin. */
  public static Registry create() {
    Registry r = new Registry();
    BuiltInPlugins.registerAll(r);
    GpuPlugins.registrations().forEach(r::register);
    return r;
  }
}
