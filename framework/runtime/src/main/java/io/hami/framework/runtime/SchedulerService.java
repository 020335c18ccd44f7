package io.hami.framework.runtime;

import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.hami.framework.bind.ApiRateLimiter;
import io.hami.framework.bind.ApiRequestObserver;
import io.hami.framework.bind.Binder;
import io.hami.framework.bind.PodEvictor;
import io.hami.framework.config.LeaderElectionConfig;
import io.hami.framework.config.SchedulerConfiguration;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler against a real API server: informers on nodes and pods feed the {@link
 * ClusterEventHandler}; the scheduling loop runs on its own thread once this replica leads (or at
 * once without leader election); binding, status and Event writes run on bounded executors behind a
 * shared rate limiter; metrics and {@code /healthz}, {@code /readyz} are served over HTTP.
 *
 * <p>A standby replica keeps its informers and cache warm, so it can take over at once. Losing the
 * lease ends the service with exit code 1, as kube-scheduler does, so that the process restarts
 * clean. So does an {@link Error} on the scheduling thread, a binding thread or the timer, and a
 * loop that ends on its own: readiness goes false first, then {@link #awaitTermination} returns 1
 * and the owner closes the service (bounded) and exits. {@code /healthz} fails once the service
 * ended or the loop's heartbeat is older than {@link #HEARTBEAT_TIMEOUT}.
 */
public final class SchedulerService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SchedulerService.class);

  /** How long the scheduling loop may go without turning before {@code /healthz} fails. */
  static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(60);

  /** Event writers, so that a burst's Events are written as its pods are bound. */
  static final int EVENT_LANES = 4;

  /** Settings that come from flags rather than the configuration file. */
  public record Options(
      boolean leaderElect,
      String identity,
      @Nullable InetSocketAddress metricsAddress,
      double kubeQps,
      int kubeBurst,
      int bindingThreads) {

    public static Options defaults() {
      return new Options(false, "hami-scheduler", null, 50, 100, 16);
    }
  }

  private final KubernetesClient client;
  private final SchedulerConfiguration config;
  private final Options options;
  private final Scheduler scheduler;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ExecutorService bindingPool;
  private final ExecutorService writerPool;
  private final List<ExecutorService> eventLanes;
  private final ScheduledExecutorService timer;
  private final ApiEventRecorder events;
  private final CompletableFuture<Integer> terminated = new CompletableFuture<>();
  private volatile boolean synced;
  private volatile boolean failed;
  private volatile boolean leading;
  private final ClusterInformers informers;
  private volatile @Nullable Thread loop;
  private volatile @Nullable HTTPServer http;
  private final Map<String, HttpHandler> routes = new ConcurrentHashMap<>();
  private @Nullable CompletableFuture<?> election;

  /**
   * @throws io.hami.framework.config.ConfigException if a profile cannot be built
   */
  public SchedulerService(
      KubernetesClient client, SchedulerConfiguration config, Registry plugins, Options options) {
    this.client = client;
    this.config = config;
    this.options = options;
    this.bindingPool =
        Executors.newFixedThreadPool(
            options.bindingThreads(), ServiceThreads.daemon("hami-binding"));
    this.writerPool = ServiceThreads.boundedSingle("hami-status-writer", 10_000);
    this.eventLanes = ServiceThreads.lanes("hami-events", EVENT_LANES, 10_000 / EVENT_LANES);
    this.timer = Executors.newSingleThreadScheduledExecutor(ServiceThreads.daemon("hami-timer"));
    ApiRateLimiter limiter =
        new ApiRateLimiter(options.kubeQps(), options.kubeBurst(), System::nanoTime);
    SchedulerMetrics[] metricsRef = new SchedulerMetrics[1];
    ApiRequestObserver observer =
        (verb, resource, outcome) -> {
          if (metricsRef[0] != null) {
            metricsRef[0].apiRequest(verb, resource, outcome);
          }
        };
    InstantSource clock = InstantSource.system();
    DefaultParallelizer parallelizer = new DefaultParallelizer(config.parallelism());
    ApiStatusWriter statusWriter =
        new ApiStatusWriter(client, writerPool, clock, limiter, observer);
    this.events =
        new ApiEventRecorder(client, eventLanes, clock, limiter, observer, "hami-scheduler");
    this.scheduler =
        Scheduler.builder(config, plugins)
            .clock(clock)
            .metricsRegistry(registry)
            .parallelizer(parallelizer)
            .client(client)
            .binder(Binder.apiBinder(client, observer, limiter))
            .evictor(PodEvictor.api(client, observer, limiter, clock))
            .statusWriter(statusWriter)
            .eventRecorder(events)
            .bindingExecutor(bindingPool)
            // Running and one queued per binding thread: the scheduling thread stays close to
            // what binding can absorb (see BindingCycle.awaitRoom).
            .maxBindingsInFlight(2 * options.bindingThreads())
            .build();
    metricsRef[0] = scheduler.metrics();
    this.informers = new ClusterInformers(client, scheduler);
    scheduler
        .metrics()
        .gauge(
            "hami_scheduler_informers",
            "Informers started and still running (nodes, pods and the kinds plugins list); a"
                + " number that grows over time is a leak.",
            new String[0],
            cb -> cb.call(informers.running()));
    scheduler.onFatal(e -> fail("fatal error in the scheduler", e));
    Scheduler s = this.scheduler;
    statusWriter.onPodGone(
        p -> {
          // Before the informer's delete event: its stale updates must not requeue the pod.
          s.queue().deleteGone(p);
          s.eventHandler().onPodDelete(p);
        });
  }

  public Scheduler scheduler() {
    return scheduler;
  }

  public PrometheusRegistry metricsRegistry() {
    return registry;
  }

  /**
   * Serves the requests whose path is {@code prefix} or lies under it with {@code handler}, on the
   * metrics port (nothing is served without a metrics address). Call before {@link #start}. The
   * handler runs on the HTTP server's threads, concurrently with scheduling: it must read only
   * state that is safe to read from another thread.
   *
   * @param prefix a path such as {@code /ui}; not {@code /metrics}, {@code /healthz} or {@code
   *     /readyz}
   */
  public void route(String prefix, HttpHandler handler) {
    Objects.requireNonNull(handler, "handler");
    if (!prefix.startsWith("/") || prefix.endsWith("/") || prefix.length() < 2) {
      throw new IllegalArgumentException("route prefix must look like /name, was " + prefix);
    }
    if (List.of("/metrics", "/healthz", "/readyz").contains(prefix)) {
      throw new IllegalArgumentException("route prefix " + prefix + " is served by the service");
    }
    if (http != null) {
      throw new IllegalStateException("route " + prefix + " added after the server started");
    }
    if (routes.putIfAbsent(prefix, handler) != null) {
      throw new IllegalStateException("route " + prefix + " is already served");
    }
  }

  /** The port the metrics server listens on, or empty before start or without a metrics address. */
  public OptionalInt httpPort() {
    HTTPServer h = http;
    return h == null ? OptionalInt.empty() : OptionalInt.of(h.getPort());
  }

  /** The handler of the route {@code path} falls under, or null. */
  private @Nullable HttpHandler routeOf(String path) {
    for (Map.Entry<String, HttpHandler> r : routes.entrySet()) {
      String prefix = r.getKey();
      if (path.equals(prefix) || path.startsWith(prefix + "/")) {
        return r.getValue();
      }
    }
    return null;
  }

  /** Whether the informers synced and the service has not failed or stopped (readiness). */
  public boolean isReady() {
    return synced && !failed && !terminated.isDone();
  }

  /**
   * Whether the service runs and, once this replica schedules, its loop turned within {@link
   * #HEARTBEAT_TIMEOUT} (liveness).
   */
  public boolean isLive() {
    if (terminated.isDone()) {
      return false;
    }
    if (loop == null || !scheduler.running()) {
      return true;
    }
    Duration since = Duration.between(scheduler.heartbeat(), scheduler.clock().instant());
    return since.compareTo(HEARTBEAT_TIMEOUT) < 0;
  }

  /** Marks the service failed (readiness false first), then ends it with exit code 1. */
  private void fail(String what, @Nullable Throwable cause) {
    failed = true;
    if (terminated.isDone()) {
      return;
    }
    log.error("{}; stopping", what, cause);
    terminated.complete(1);
  }

  public boolean isLeading() {
    return leading;
  }

  /**
   * Starts metrics, informers (waiting up to {@code syncTimeout} for their first listing) and then
   * scheduling, directly or after winning the lease.
   *
   * @throws IOException if the metrics address cannot be bound
   * @throws IllegalStateException if the informers do not sync in time
   */
  // The tick logs its own failures and stops with the timer's shutdownNow: its future carries
  // nothing to check.
  @SuppressWarnings("FutureReturnValueIgnored")
  public void start(Duration syncTimeout) throws IOException {
    InetSocketAddress metricsAddress = options.metricsAddress();
    if (metricsAddress != null) {
      serveMetrics(metricsAddress);
    }
    informers.start(syncTimeout);
    synced = true;
    timer.scheduleWithFixedDelay(this::tickSafely, 1, 1, TimeUnit.SECONDS);
    long flush = ApiEventRecorder.FLUSH_EVERY.toMillis();
    timer.scheduleWithFixedDelay(events::flush, flush, flush, TimeUnit.MILLISECONDS);
    if (options.leaderElect()) {
      campaign();
    } else {
      startLoop();
    }
  }

  /** Serves {@code /metrics}, {@code /healthz}, {@code /readyz} and the added routes. */
  private void serveMetrics(InetSocketAddress a) throws IOException {
    JvmMetrics.builder().register(registry);
    http =
        HTTPServer.builder()
            .inetAddress(a.getAddress())
            .port(a.getPort())
            .registry(registry)
            .defaultHandler(
                exchange -> {
                  String path = exchange.getRequestURI().getPath();
                  HttpHandler routed = routeOf(path);
                  if (routed != null) {
                    routed.handle(exchange);
                    return;
                  }
                  int code;
                  String body;
                  if ("/healthz".equals(path)) {
                    boolean live = isLive();
                    code = live ? 200 : 500;
                    body = live ? "ok" : terminated.isDone() ? "stopped" : "scheduling loop stuck";
                  } else if ("/readyz".equals(path)) {
                    boolean ready = isReady();
                    code = ready ? 200 : 503;
                    body = ready ? "ok" : synced ? "stopping" : "informers not synced";
                  } else {
                    code = 404;
                    body = "not found";
                  }
                  byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                  exchange.sendResponseHeaders(code, bytes.length);
                  try (OutputStream os = exchange.getResponseBody()) {
                    os.write(bytes);
                  }
                })
            .buildAndStart();
    log.info("serving metrics and health on port {}", http.getPort());
  }

  /** Starts the loop once this replica wins the lease; stops the process if it loses it. */
  private void campaign() {
    LeaderElectionConfig le = config.leaderElection();
    LeaderElector elector =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(le.leaseName())
                    .withLock(
                        new LeaseLock(le.leaseNamespace(), le.leaseName(), options.identity()))
                    .withLeaseDuration(le.leaseDuration())
                    .withRenewDeadline(le.renewDeadline())
                    .withRetryPeriod(le.retryPeriod())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            this::startLoop,
                            () -> {
                              if (leading) {
                                log.error("lost the lease {}; stopping", le.leaseName());
                                terminated.complete(1);
                              }
                            },
                            id -> log.info("leader is now {}", id)))
                    .build())
            .build();
    election = elector.start();
    log.info(
        "waiting to lead lease {}/{} as {}",
        le.leaseNamespace(),
        le.leaseName(),
        options.identity());
  }

  private void tickSafely() {
    try {
      scheduler.tick();
    } catch (RuntimeException e) {
      log.error("periodic scheduler work failed", e);
    } catch (Error e) {
      // The timer would silently drop every later tick: Permit timeouts and backoff would stop.
      fail("fatal error in the periodic scheduler work", e);
      throw e;
    }
  }

  private synchronized void startLoop() {
    if (loop != null) {
      return;
    }
    leading = true;
    Thread t =
        new Thread(
            () -> {
              try {
                scheduler.run();
              } catch (RuntimeException | Error e) {
                fail("scheduling loop failed", e);
                return;
              }
              if (!terminated.isDone()) {
                fail("scheduling loop ended", null);
              }
            },
            "hami-scheduler");
    t.setDaemon(true);
    loop = t;
    t.start();
    log.info("scheduling started: profiles {}", scheduler.profiles().keySet());
  }

  /**
   * Blocks until the service stops on its own (lost lease, loop failure); returns the exit code.
   */
  public int awaitTermination() throws InterruptedException {
    try {
      return terminated.get();
    } catch (ExecutionException e) {
      return 1;
    }
  }

  /** Ends the service with {@code code} (for shutdown hooks). */
  public void stop(int code) {
    terminated.complete(code);
  }

  @Override
  public void close() {
    terminated.complete(0);
    scheduler.queue().close();
    if (loop != null) {
      loop.interrupt();
    }
    if (election != null) {
      election.cancel(true);
    }
    informers.close();
    timer.shutdownNow();
    bindingPool.shutdown();
    writerPool.shutdown();
    events.flush(); // the counts of open series
    eventLanes.forEach(ExecutorService::shutdown);
    try {
      bindingPool.awaitTermination(5, TimeUnit.SECONDS);
      Thread t = loop;
      if (t != null) {
        t.join(5_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    scheduler.close();
    if (http != null) {
      http.close();
    }
    if (scheduler.parallelizer() instanceof DefaultParallelizer) {
      ((DefaultParallelizer) scheduler.parallelizer()).close();
    }
  }
}
