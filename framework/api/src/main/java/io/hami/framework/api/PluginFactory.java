package io.hami.framework.api;

/**
 * Creates a plugin for one profile from its validated arguments. Called once per profile, on the
 * thread that builds the scheduler, before informers start.
 *
 * @param <A> the plugin's arguments type
 */
@FunctionalInterface
public interface PluginFactory<A extends PluginArgs> {

  /**
   * Creates the plugin from its validated arguments.
   *
   * @throws IllegalArgumentException for a combination of arguments that validation could not
   *     catch; the message names the field
   */
  Plugin create(A args, FrameworkHandle handle);
}
