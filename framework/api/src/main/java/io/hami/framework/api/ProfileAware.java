package io.hami.framework.api;

import java.util.Set;

/**
 * Optional capability of a plugin whose behaviour depends on which other plugins its profile runs
 * (a check that refuses a pod field unless the plugin implementing it is enabled).
 *
 * <p>Called once, on the thread building the profile, after every plugin of the profile was created
 * and before any pod is scheduled.
 */
public interface ProfileAware {

  /**
   * Tells the plugin its profile's plugins.
   *
   * @param enabled the names of the plugins that run at one extension point or more
   */
  void profileBuilt(Set<String> enabled);
}
