package io.hami.cmd.scheduler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.scheduler.ui.ClusterView;
import io.hami.cmd.scheduler.ui.ViewAccess;
import io.hami.cmd.webhook.WebhookOptions;
import io.hami.framework.config.ConfigException;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.runtime.ClientRequestMetrics;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.SchedulerService;
import io.hami.kube.cli.ClusterOptions;
import io.hami.model.config.DeviceConfig;
import io.hami.webhook.WebhookServer;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hami scheduler}: runs the scheduler against a cluster. Exit codes: 0 on a clean stop, 2
 * for a bad flag or configuration (every error printed), 1 for a runtime failure.
 */
@Command(
    name = "scheduler",
    mixinStandardHelpOptions = true,
    description = "Runs the HAMi scheduler (a second scheduler, schedulerName hami-scheduler).")
public final class SchedulerCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(SchedulerCommand.class);
  public static final int EXIT_RUNTIME = 1;
  public static final int EXIT_CONFIG = 2;

  /** How long a SIGTERM waits for the scheduler to stop and give up its lease. */
  static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(20);

  @SuppressWarnings("NullAway.Init") // picocli injects it before call().
  @Spec
  CommandSpec spec;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(
      names = "--config",
      description =
          "Scheduler configuration YAML (apiVersion hami.io/v1), such as the shipped"
              + " config/scheduler/scheduler-config.yaml with the GPU plugins. Without it: one"
              + " profile hami-scheduler with kube-scheduler's default plugins and no GPU plugins.")
  @Nullable Path config;

  @Option(
      names = "--leader-elect",
      arity = "0..1",
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Compete for the Lease and schedule only while leading (default: ${DEFAULT-VALUE}).")
  boolean leaderElect;

  @Option(
      names = "--lease-identity",
      defaultValue = "${env:POD_NAME}",
      description = "Identity in the Lease; default: POD_NAME, else the host name.")
  @Nullable String identity;

  @Option(
      names = "--metrics-bind-address",
      defaultValue = "0.0.0.0:10351",
      description =
          "host:port for /metrics, /healthz, /readyz and the cluster view (/ui); empty to disable"
              + " (default: ${DEFAULT-VALUE}).")
  String metricsAddress = "";

  @Option(
      names = "--cluster-view",
      defaultValue = "localhost",
      paramLabel = "localhost|any|off",
      description =
          "Who may read the cluster view under /ui on the metrics port: localhost (loopback"
              + " clients only), any, or off. The port has no TLS or authentication, so expose"
              + " it only behind a proxy that adds them (default: ${DEFAULT-VALUE}).")
  String clusterView = "localhost";

  @Option(
      names = "--kube-qps",
      defaultValue = "50",
      description = "API writes per second (default: ${DEFAULT-VALUE}).")
  double kubeQps;

  @Option(
      names = "--kube-burst",
      defaultValue = "100",
      description = "API write burst (default: ${DEFAULT-VALUE}).")
  int kubeBurst;

  @Option(
      names = "--binding-threads",
      defaultValue = "16",
      description =
          "Binding cycles run at once; each spends most of its time waiting on the API (default: ${DEFAULT-VALUE}).")
  int bindingThreads;

  @Option(
      names = "--device-config-file",
      description =
          "Device config file (device-config.yaml) for the hosted webhook; built-in defaults when absent.")
  @Nullable Path deviceConfigFile;

  /**
   * The admission webhook hosted beside the scheduler, off unless --webhook-bind-address is set.
   */
  @Mixin WebhookOptions webhook = new WebhookOptions();

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    List<String> errors = new ArrayList<>();
    if (!(kubeQps > 0)) {
      errors.add("--kube-qps: invalid value " + kubeQps + ": must be positive");
    }
    if (kubeBurst < 1) {
      errors.add("--kube-burst: invalid value " + kubeBurst + ": must be at least 1");
    }
    if (bindingThreads < 1 || bindingThreads > 1024) {
      errors.add(
          "--binding-threads: invalid value " + bindingThreads + ": must be between 1 and 1024");
    }
    InetSocketAddress metrics = null;
    try {
      metrics = parseAddress(metricsAddress);
    } catch (IllegalArgumentException e) {
      errors.add("--metrics-bind-address: " + e.getMessage());
    }
    ViewAccess viewAccess = ViewAccess.LOCALHOST;
    try {
      viewAccess = ViewAccess.parse(clusterView);
    } catch (IllegalArgumentException e) {
      errors.add("--cluster-view: " + e.getMessage());
    }
    String clusterProblem = cluster.problem();
    if (clusterProblem != null) {
      errors.add(clusterProblem);
    }
    Registry registry = PluginRegistry.create();
    SchedulerConfiguration cfg = null;
    try {
      ConfigLoader loader = new ConfigLoader(registry);
      cfg = config == null ? loader.defaults() : loader.load(config);
    } catch (ConfigException e) {
      errors.add(e.getMessage());
    }
    DeviceConfig devices =
        WebhookOptions.loadDeviceConfig(deviceConfigFile, "hami scheduler", errors, err);
    // cfg is null only when loading failed, and then errors says why.
    if (!errors.isEmpty() || cfg == null) {
      errors.forEach(err::println);
      err.flush();
      return EXIT_CONFIG;
    }
    String id = identity == null || identity.isBlank() ? hostName() : identity;
    CountDownLatch closed = new CountDownLatch(1);
    ClientRequestMetrics requests = new ClientRequestMetrics();
    try (KubernetesClient client = requests.clientBuilder(cluster.config()).build();
        SchedulerService service =
            new SchedulerService(
                client,
                cfg,
                registry,
                new SchedulerService.Options(
                    leaderElect, id, metrics, kubeQps, kubeBurst, bindingThreads))) {
      requests.register(service.metricsRegistry());
      ClusterView.install(service, registry, viewAccess);
      String schedulerName = cfg.profiles().get(0).schedulerName();
      Optional<WebhookServer> hosted = webhook.build(devices, schedulerName, client, errors);
      if (!errors.isEmpty()) {
        errors.forEach(err::println);
        err.flush();
        return EXIT_CONFIG;
      }
      if (hosted.isPresent()) {
        // The webhook answers on every replica, leader or not: admission must not wait for an
        // election.
        hosted.get().startAsync().awaitRunning(30, TimeUnit.SECONDS);
        log.info("admission webhook serving schedulerName={}", schedulerName);
      }
      Runtime.getRuntime()
          .addShutdownHook(
              shutdownHook(
                  () -> {
                    hosted.ifPresent(WebhookServer::stopAsync);
                    service.stop(0);
                  },
                  closed,
                  SHUTDOWN_GRACE));
      service.start(Duration.ofMinutes(2));
      int code = service.awaitTermination();
      hosted.ifPresent(w -> w.stopAsync().awaitTerminated());
      log.info("scheduler stopped with code {}", code);
      return code;
    } catch (ConfigException e) {
      err.println(e.getMessage());
      err.flush();
      return EXIT_CONFIG;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return EXIT_RUNTIME;
    } catch (Exception e) {
      log.error("scheduler failed", e);
      err.println("scheduler failed: " + e.getMessage());
      err.flush();
      return EXIT_RUNTIME;
    } finally {
      closed.countDown();
    }
  }

  /**
   * The JVM halts as soon as its shutdown hooks return, so on SIGTERM the hook asks the service to
   * stop and then waits, up to {@code grace}, until {@link #call()} has closed it: closing stops
   * scheduling and gives the lease up, so that a standby replica takes over at once instead of
   * waiting for the lease to expire.
   *
   * @param stop asks the service (and the hosted webhook) to stop
   * @param closed counted down once everything is closed
   */
  static Thread shutdownHook(Runnable stop, CountDownLatch closed, Duration grace) {
    return new Thread(
        () -> {
          stop.run();
          try {
            if (!closed.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
              log.warn("the scheduler did not stop within {}; exiting anyway", grace);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        "hami-shutdown");
  }

  /** Parses {@code host:port} (host may be empty); null for an empty string. */
  static @Nullable InetSocketAddress parseAddress(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("invalid value \"" + value + "\": want host:port");
    }
    String host = value.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("invalid value \"" + value + "\": port is not a number");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("invalid value \"" + value + "\": port out of range");
    }
    try {
      InetAddress addr =
          host.isEmpty() ? InetAddress.getByName("0.0.0.0") : InetAddress.getByName(host);
      return new InetSocketAddress(addr, port);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("invalid value \"" + value + "\": unknown host " + host);
    }
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "hami-scheduler";
    }
  }
}
