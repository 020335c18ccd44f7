package io.hami.e2e.scenarios;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.scheduler.PluginRegistry;
import io.hami.cmd.scheduler.ui.ClusterView;
import io.hami.cmd.scheduler.ui.ViewAccess;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.SchedulerService;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The hami-scheduler as {@code hami scheduler} wires it, with the shipped profile, in-process; its
 * metrics, health and cluster view on a free loopback port.
 */
public final class Scheduler implements AutoCloseable {
  private final SchedulerService service;

  private Scheduler(SchedulerService service) {
    this.service = service;
  }

  /** The cluster view's page, served on a loopback port as {@code hami up} serves it. */
  public String viewUrl() {
    return "http://127.0.0.1:" + service.httpPort().orElseThrow() + ClusterView.PATH;
  }

  /** The shipped profile, {@code config/scheduler/scheduler-config.yaml}. */
  static Path shippedConfig() {
    return ControlPlaneExtension.moduleDir()
        .toAbsolutePath()
        .getParent()
        .resolve("config/scheduler/scheduler-config.yaml");
  }

  /** Starts a scheduler (no leader election) on {@code client} with the shipped profile. */
  public static Scheduler start(KubernetesClient client) throws Exception {
    return start(client, shippedConfig(), "hami-scheduler-e2e");
  }

  /**
   * Starts a scheduler (no leader election) on {@code client} with the configuration file {@code
   * config}, for scenarios that need other arguments than the shipped ones; give its profile its
   * own {@code schedulerName} when the shipped scheduler runs beside it.
   */
  public static Scheduler start(KubernetesClient client, Path config, String identity)
      throws Exception {
    Registry registry = PluginRegistry.create();
    SchedulerConfiguration cfg = new ConfigLoader(registry).load(config);
    InetSocketAddress http = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    SchedulerService service =
        new SchedulerService(
            client, cfg, registry, new SchedulerService.Options(false, identity, http, 50, 100, 4));
    ClusterView.install(service, registry, ViewAccess.LOCALHOST);
    try {
      service.start(Duration.ofSeconds(60));
    } catch (Exception e) {
      service.close();
      throw e;
    }
    return new Scheduler(service);
  }

  /** How many informers the scheduler replaced after losing their watch, all kinds and causes. */
  public double informerReplacements() {
    double sum = 0;
    for (MetricSnapshot m : service.metricsRegistry().scrape()) {
      if (m instanceof CounterSnapshot c
          && c.getMetadata().getName().equals("hami_scheduler_informer_replacements")) {
        for (CounterSnapshot.CounterDataPointSnapshot d : c.getDataPoints()) {
          sum += d.getValue();
        }
      }
    }
    return sum;
  }

  @Override
  public void close() {
    service.close();
  }
}
