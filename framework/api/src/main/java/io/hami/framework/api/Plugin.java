package io.hami.framework.api;

/**
 * The parent of every extension-point interface. A plugin instance belongs to one profile and is
 * created once, by its {@link PluginFactory}, when the profile is built.
 */
public interface Plugin {

  /**
   * Returns the plugin's registered name, as used in configuration and in statuses. Constant for
   * the lifetime of the instance.
   */
  String name();
}
