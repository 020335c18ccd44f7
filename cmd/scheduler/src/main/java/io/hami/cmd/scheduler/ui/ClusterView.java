package io.hami.cmd.scheduler.ui;

import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.SchedulerService;
import java.time.InstantSource;

/** Puts the cluster view on a scheduler service's HTTP port, under {@code /ui}. */
public final class ClusterView {
  /** The path of the page. */
  public static final String PATH = ClusterViewHandler.PREFIX + "/";

  private ClusterView() {}

  /**
   * Serves the view of {@code service}'s scheduler under {@code /ui}; does nothing for {@link
   * ViewAccess#OFF}. Call before the service starts.
   *
   * @param registry the registry the service's profiles were built from (for default arguments)
   */
  public static void install(SchedulerService service, Registry registry, ViewAccess access) {
    if (access == ViewAccess.OFF) {
      return;
    }
    ClusterViewSource source = ClusterViewSource.of(service.scheduler(), registry);
    service.route(
        ClusterViewHandler.PREFIX, new ClusterViewHandler(source, access, InstantSource.system()));
  }
}
