package io.hami.framework.api;

/**
 * The parent of every extension-point interface. A plugin instance belongs to one profile and is
 * created once, by its {@link PluginFactory}, when the profile is built.
 *
 * <p>A plugin that owns resources (threads, informers, executors) implements {@link AutoCloseable}:
 * the framework closes it once, when its profile or scheduler stops or when the profile fails to
 * build, after the plugins created later than it (reverse order of creation, so a plugin may use
 * what an earlier one made until it is closed itself). {@code close} is called on the thread that
 * stops the scheduler, after scheduling and binding ended; an exception it throws is logged and
 * does not stop the other plugins from closing.
 */
public interface Plugin {

  /**
   * Returns the plugin's registered name, as used in configuration and in statuses. Constant for
   * the lifetime of the instance.
   */
  String name();
}
