package io.hami.nodeagent;

import static java.util.stream.Collectors.toSet;

import com.google.common.base.Suppliers;
import com.google.common.collect.ImmutableList;
import com.google.common.util.concurrent.Service;
import com.google.common.util.concurrent.ServiceManager;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.config.OperatingMode;
import io.hami.nodeagent.deviceplugin.Allocator;
import io.hami.nodeagent.deviceplugin.DevicePluginServer;
import io.hami.nodeagent.deviceplugin.DevicePluginService;
import io.hami.nodeagent.deviceplugin.KubeletWatcher;
import io.hami.nodeagent.deviceplugin.MigInstances;
import io.hami.nodeagent.deviceplugin.MigReaper;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.health.HealthMonitor;
import io.hami.nodeagent.metrics.ContainerMetrics;
import io.hami.nodeagent.metrics.DeviceMetrics;
import io.hami.nodeagent.metrics.MetricsServer;
import io.hami.nodeagent.monitor.HostPidBroker;
import io.hami.nodeagent.monitor.Monitor;
import io.hami.nodeagent.monitor.MonitorMetrics;
import io.hami.nodeagent.nvml.GpuInfo;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import io.hami.nodeagent.publish.NodeRegistrar;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent's long-lived parts under one {@link ServiceManager}: the device plugin server, the
 * kubelet watcher, the node registrar, the health monitor, the metrics server, the utilisation
 * monitor with its host-pid broker (when enabled) and, in MIG mode, the MIG instance reaper.
 */
public final class NodeAgent {
  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

  private final ServiceManager services;
  private final Supervisor supervisor;
  private final ImmutableList<ExecutorService> executors;
  private final GpuInventory inventory;
  private final DevicePluginServer pluginServer;
  private final NodeRegistrar registrar;
  private final @Nullable MetricsServer metricsServer;
  private final Nvml nvml;

  private NodeAgent(
      ServiceManager services,
      List<ExecutorService> executors,
      GpuInventory inventory,
      DevicePluginServer pluginServer,
      NodeRegistrar registrar,
      @Nullable MetricsServer metricsServer,
      Nvml nvml) {
    this.services = services;
    this.supervisor = new Supervisor(services);
    this.executors = ImmutableList.copyOf(executors);
    this.inventory = inventory;
    this.pluginServer = pluginServer;
    this.registrar = registrar;
    this.metricsServer = metricsServer;
    this.nvml = nvml;
  }

  /**
   * Options that tests change; production uses {@link #defaults()}.
   *
   * @param healthSlice how long one XID wait lasts
   * @param kubeletRetry how often a failed kubelet registration is retried
   * @param cacheNames names each container's shared-region cache file
   * @param podsOnNode lists the pods bound to a node
   */
  public record Tuning(
      Duration healthSlice,
      Duration kubeletRetry,
      Supplier<String> cacheNames,
      BiFunction<KubernetesClient, String, List<Pod>> podsOnNode) {
    public static Tuning defaults() {
      return new Tuning(
          Duration.ofSeconds(5),
          Duration.ofSeconds(5),
          () -> UUID.randomUUID().toString(),
          NodeAgent::podsOnNode);
    }
  }

  /** The pods bound to {@code node}, by field selector. */
  public static List<Pod> podsOnNode(KubernetesClient client, String node) {
    return client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems();
  }

  /** Discovers the GPUs and wires the services; nothing runs until {@link #start}. */
  public static NodeAgent create(
      NodeAgentConfig config,
      Nvml nvml,
      KubernetesClient client,
      @Nullable InetSocketAddress metricsAddress,
      Clock clock,
      Tuning tuning)
      throws NvmlException {
    List<GpuInfo> gpus = new ArrayList<>();
    for (GpuInfo g : nvml.devices()) {
      if (config.excludedUuids().contains(g.uuid())
          || config.excludedIndices().contains(g.index())) {
        log.info("GPU excluded by config index={} uuid={}", g.index(), g.uuid());
        continue;
      }
      gpus.add(g);
    }
    log.info(
        "discovered {}; serving {} GPU(s) on node {}",
        nvml.describe(),
        gpus.size(),
        config.nodeName());
    GpuInventory inventory = new GpuInventory(gpus);
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            new ThreadFactoryBuilder().setNameFormat("node-agent-%d").setDaemon(true).build());
    List<ExecutorService> executors = new ArrayList<>(List.of(executor));
    Supplier<List<Pod>> pods = () -> tuning.podsOnNode().apply(client, config.nodeName());
    MigInstances mig =
        config.mode() == OperatingMode.MIG ? new MigInstances(nvml, inventory) : null;
    Allocator allocator = new Allocator(client, config, tuning.cacheNames(), pods, mig);
    DevicePluginService service = new DevicePluginService(config, inventory, allocator);
    DevicePluginServer pluginServer = new DevicePluginServer(config, service);
    NodeRegistrar registrar = new NodeRegistrar(client, config, inventory, nvml, clock, executor);
    List<Service> list = new ArrayList<>();
    list.add(pluginServer);
    list.add(new KubeletWatcher(config.deviceDir(), pluginServer, tuning.kubeletRetry()));
    list.add(registrar);
    list.add(new HealthMonitor(nvml, inventory, config.health(), tuning.healthSlice()));
    if (mig != null) {
      // Instances of pods that are gone are destroyed at the register pace, freeing placements.
      list.add(new MigReaper(mig, pods, config.registerInterval(), executor));
    }
    Monitor monitor = null;
    if (config.monitor()) {
      // Its own thread: a slow API call on the shared one must not delay priority feedback.
      ScheduledExecutorService monitorThread =
          Executors.newSingleThreadScheduledExecutor(
              new ThreadFactoryBuilder().setNameFormat("monitor-%d").setDaemon(true).build());
      executors.add(monitorThread);
      Supplier<Set<String>> livePods =
          Suppliers.memoizeWithExpiration(
              () -> pods.get().stream().map(p -> p.getMetadata().getUid()).collect(toSet()),
              30,
              TimeUnit.SECONDS);
      monitor =
          new Monitor(
              config.hookPath(), config.monitorPeriod(), nvml, livePods, clock, monitorThread);
      list.add(monitor);
      if (config.hostPidBroker() != null) {
        list.add(new HostPidBroker(config.hostPidBroker()));
      }
    }
    MetricsServer metrics = null;
    if (metricsAddress != null) {
      PrometheusRegistry registry = new PrometheusRegistry();
      // One scrape reads every gauge; they share one pod list.
      Supplier<List<Pod>> scrapePods =
          Suppliers.memoizeWithExpiration(pods::get, 2, TimeUnit.SECONDS);
      new DeviceMetrics(config, inventory, scrapePods, registrar::migProfiles).register(registry);
      new ContainerMetrics(config.hookPath(), scrapePods, clock).register(registry);
      if (monitor != null) {
        new MonitorMetrics(monitor, scrapePods).register(registry);
      }
      metrics = new MetricsServer(metricsAddress, registry);
      list.add(metrics);
    }
    ServiceManager manager = new ServiceManager(list);
    return new NodeAgent(manager, executors, inventory, pluginServer, registrar, metrics, nvml);
  }

  public void start(Duration timeout) throws TimeoutException {
    services.startAsync().awaitHealthy(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops every service, then the executor and NVML; safe to call twice. */
  public void stop(Duration timeout) {
    supervisor.stop();
    try {
      services.awaitStopped(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn("services did not stop within {}: {}", timeout, services.servicesByState());
    }
    executors.forEach(ExecutorService::shutdownNow);
    nvml.close();
  }

  /**
   * Blocks until {@link #stop} is called or a service fails, then waits up to {@code grace} for
   * every service to stop. Returns 0 after a stop, 1 after a failure: any failed service (the
   * device plugin server, the health monitor, the registrar...) ends the agent, so that the
   * DaemonSet restarts it whole instead of leaving it half alive.
   */
  public int awaitTermination(Duration grace) throws InterruptedException {
    return supervisor.awaitTermination(grace);
  }

  /** Whether every service runs and none failed. */
  public boolean isReady() {
    return supervisor.isReady();
  }

  public GpuInventory inventory() {
    return inventory;
  }

  public DevicePluginServer pluginServer() {
    return pluginServer;
  }

  public NodeRegistrar registrar() {
    return registrar;
  }

  public int metricsPort() {
    return metricsServer == null ? -1 : metricsServer.port();
  }
}
