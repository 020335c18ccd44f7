package io.hami.framework.runtime;

import io.hami.framework.api.Plugin;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Closes the {@link AutoCloseable} plugins of a profile, last created first. */
final class PluginCloser {
  private static final Logger log = LoggerFactory.getLogger(PluginCloser.class);

  private PluginCloser() {}

  /**
   * Closes each plugin of {@code inCreationOrder} that is {@link AutoCloseable}, in reverse order;
   * a failure is logged and the others still close.
   */
  static void closeAll(String profile, Collection<Plugin> inCreationOrder) {
    List<Plugin> reversed = new ArrayList<>(inCreationOrder);
    for (int i = reversed.size() - 1; i >= 0; i--) {
      Plugin p = reversed.get(i);
      if (!(p instanceof AutoCloseable c)) {
        continue;
      }
      try {
        c.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        log.warn("closing plugin interrupted profile={} plugin={}", profile, p.name());
      } catch (Exception e) {
        log.warn("closing plugin failed profile={} plugin={}", profile, p.name(), e);
      }
    }
  }
}
