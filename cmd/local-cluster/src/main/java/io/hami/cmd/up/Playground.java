package io.hami.cmd.up;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.ControlPlaneBinaries;
import io.hami.cmd.cluster.ControlPlaneOptions;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Pki;
import io.hami.cmd.scheduler.PluginRegistry;
import io.hami.cmd.scheduler.ui.ClusterView;
import io.hami.cmd.scheduler.ui.ViewAccess;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.SchedulerService;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.DeviceConfigFile;
import io.hami.model.config.Validated;
import io.hami.nodeagent.nvml.GpuInfo;
import io.hami.webhook.WebhookConfig;
import io.hami.webhook.WebhookServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local cluster to try the system on: a real etcd and kube-apiserver, the hami-scheduler with the
 * shipped profile (unless started without it), the admission webhook registered through the shipped
 * MutatingWebhookConfiguration (pointed at its loopback address), and fake GPU nodes, each with a
 * node agent over fake GPUs and a fake kubelet that allocates devices and reports pods Running.
 *
 * <p>{@link #start} leaves nothing behind when it fails; {@link #close} stops everything in the
 * reverse order and removes the work directory. A JVM shutdown hook removes the control plane and
 * the work directory if the process ends without {@link #close}.
 */
public final class Playground implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Playground.class);

  /** Name of the MutatingWebhookConfiguration, as shipped. */
  public static final String WEBHOOK_CONFIGURATION = "hami-webhook";

  private static final Duration COMPONENT_TIMEOUT = Duration.ofMinutes(2);
  private static final int NODE_START_THREADS = 4;

  /** Something to stop; {@code needsApi} when stopping it writes to the apiserver. */
  private record Step(String what, boolean needsApi, AutoCloseable closer) {}

  private final PlaygroundSpec spec;
  private final HamiHome home;
  private final Deque<Step> started = new ArrayDeque<>();
  private final List<GpuNode> nodes = new ArrayList<>();
  private final Thread exitHook;
  private @Nullable ControlPlane controlPlane;
  private @Nullable KubernetesClient client;
  private @Nullable WebhookServer webhook;
  private String schedulerName = WebhookConfig.DEFAULT_SCHEDULER_NAME;
  private boolean schedulerRunning;
  private @Nullable String clusterViewUrl;
  private boolean closed;

  private Playground(PlaygroundSpec spec, HamiHome home) {
    this.spec = spec;
    this.home = home;
    this.exitHook = new Thread(this::closeForExit, "hami-up-exit");
  }

  /**
   * Starts everything and returns once GPU pods are admitted, scheduled and allocated. {@code
   * progress} receives one line per step. On failure (or interrupt) everything already started is
   * stopped and the work directory removed before the exception is thrown.
   */
  public static Playground start(PlaygroundSpec spec, HamiHome home, Consumer<String> progress)
      throws Exception {
    return start(spec, home, true, progress);
  }

  /**
   * Like {@link #start(PlaygroundSpec, HamiHome, Consumer)}; without {@code withScheduler}
   * everything but the hami-scheduler starts, so that another scheduler (HAMi's, kube-scheduler
   * with an extender) can be run against the node agents under the profile's scheduler name, which
   * the webhook still gives GPU pods.
   */
  public static Playground start(
      PlaygroundSpec spec, HamiHome home, boolean withScheduler, Consumer<String> progress)
      throws Exception {
    Playground p = new Playground(requireNonNull(spec), requireNonNull(home));
    try {
      p.startAll(withScheduler, progress);
      return p;
    } catch (Exception | Error e) {
      // Cleaning up must not be cut short by the interrupt that may have caused the failure.
      boolean interrupted = Thread.interrupted();
      p.close();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      throw e;
    }
  }

  private void startAll(boolean withScheduler, Consumer<String> progress) throws Exception {
    Runtime.getRuntime().addShutdownHook(exitHook);
    progress.accept(
        "kube-apiserver and etcd: finding the binaries (built once into ~/.cache/hami;"
            + " the first build takes long)");
    ControlPlaneBinaries binaries = ControlPlaneBinaries.resolve(home.e2eModule());

    Files.createDirectories(spec.workDir());
    push("work directory " + spec.workDir(), () -> deleteTree(spec.workDir()));
    progress.accept("control plane: starting etcd and kube-apiserver under " + spec.workDir());
    ControlPlane cp =
        ControlPlane.start(
            new ControlPlaneOptions(
                binaries,
                spec.workDir().resolve("control-plane"),
                COMPONENT_TIMEOUT,
                false,
                Pki.Backend.detect()));
    controlPlane = cp;
    push("control plane", cp);
    progress.accept("control plane: ready at " + cp.server());

    KubernetesClient c = cp.newAdminClient();
    client = c;
    push("client", c);
    DefaultServiceAccounts.ensure(c, "default");
    push("service accounts", DefaultServiceAccounts.start(c));

    if (withScheduler) {
      startScheduler(c);
      progress.accept(
          "scheduler: "
              + schedulerName
              + " running with "
              + home.root().relativize(home.schedulerConfig()));
    } else {
      schedulerName = schedulerConfig(PluginRegistry.create()).profiles().get(0).schedulerName();
      progress.accept(
          "scheduler: not started (--without-scheduler); GPU pods wait for a scheduler named "
              + schedulerName);
    }
    schedulerRunning = withScheduler;
    startWebhook(cp, c);
    progress.accept(
        "webhook: serving at https://127.0.0.1:"
            + requireNonNull(webhook).address().getPort()
            + "/webhook, registered as MutatingWebhookConfiguration "
            + WEBHOOK_CONFIGURATION);
    startNodes(c);
    progress.accept(
        "nodes: "
            + spec.nodes()
            + " x "
            + spec.gpusPerNode()
            + " fake "
            + spec.gpuModel()
            + " GPUs, each split into "
            + spec.splitCount()
            + " vGPUs");
  }

  private void push(String what, AutoCloseable closer) {
    push(what, false, closer);
  }

  private void pushApi(String what, AutoCloseable closer) {
    push(what, true, closer);
  }

  private void push(String what, boolean needsApi, AutoCloseable closer) {
    synchronized (started) {
      started.push(new Step(what, needsApi, closer));
    }
  }

  private void startScheduler(KubernetesClient c) throws Exception {
    Registry registry = PluginRegistry.create();
    SchedulerConfiguration cfg = schedulerConfig(registry);
    schedulerName = cfg.profiles().get(0).schedulerName();
    // Metrics, health and the cluster view on a free loopback port: several playgrounds (and the
    // end-to-end tests) may run side by side.
    InetSocketAddress http = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    SchedulerService service =
        new SchedulerService(
            c, cfg, registry, new SchedulerService.Options(false, "hami-up", http, 50, 100, 4));
    ClusterView.install(service, registry, ViewAccess.LOCALHOST);
    push("scheduler", service);
    service.start(COMPONENT_TIMEOUT);
    int port = service.httpPort().orElseThrow();
    clusterViewUrl =
        "http://"
            + InetAddress.getLoopbackAddress().getHostAddress()
            + ":"
            + port
            + ClusterView.PATH;
  }

  private SchedulerConfiguration schedulerConfig(Registry registry) {
    return new ConfigLoader(registry).load(home.schedulerConfig());
  }

  private void startWebhook(ControlPlane cp, KubernetesClient c) throws Exception {
    DeviceConfig devices = deviceConfig(home.deviceConfig());
    Pki.CertAndKey serving =
        cp.pki().issueServing("hami-webhook", List.of("hami-scheduler.hami-system.svc"));
    WebhookServer server =
        WebhookServer.builder()
            .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .certificate(serving.cert(), serving.key())
            .config(WebhookConfig.from(devices, schedulerName, true))
            .client(c)
            .build();
    server.startAsync();
    push("webhook", () -> server.stopAsync().awaitTerminated(30, TimeUnit.SECONDS));
    server.awaitRunning(COMPONENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    webhook = server;

    MutatingWebhookConfiguration registration = shippedRegistration(c, home.webhookManifest());
    String caBundle =
        Base64.getEncoder().encodeToString(cp.pki().caPem().getBytes(StandardCharsets.UTF_8));
    registration
        .getWebhooks()
        .forEach(
            w ->
                w.setClientConfig(
                    new WebhookClientConfigBuilder()
                        .withUrl("https://127.0.0.1:" + server.address().getPort() + "/webhook")
                        .withCaBundle(caBundle)
                        .build()));
    c.resource((HasMetadata) registration).create();
    pushApi(
        "webhook registration",
        () ->
            c.admissionRegistration()
                .v1()
                .mutatingWebhookConfigurations()
                .withName(WEBHOOK_CONFIGURATION)
                .delete());
    awaitWebhookInForce(c);
  }

  private static DeviceConfig deviceConfig(Path file) {
    Validated<DeviceConfig> loaded = DeviceConfigFile.load(file);
    if (loaded instanceof Validated.Invalid<DeviceConfig> invalid) {
      throw new IllegalArgumentException(file + ": " + invalid.errors());
    }
    Validated.Valid<DeviceConfig> valid = (Validated.Valid<DeviceConfig>) loaded;
    valid.warnings().forEach(w -> log.warn("{}: {}", file, w));
    return valid.value();
  }

  /** The shipped MutatingWebhookConfiguration, named {@link #WEBHOOK_CONFIGURATION}. */
  static MutatingWebhookConfiguration shippedRegistration(KubernetesClient c, Path manifest)
      throws IOException {
    try (InputStream in = Files.newInputStream(manifest)) {
      MutatingWebhookConfiguration shipped =
          c.load(in).items().stream()
              .filter(MutatingWebhookConfiguration.class::isInstance)
              .map(MutatingWebhookConfiguration.class::cast)
              .findFirst()
              .orElseThrow(
                  () -> new IOException(manifest + " has no MutatingWebhookConfiguration"));
      shipped.getMetadata().setName(WEBHOOK_CONFIGURATION);
      shipped.getMetadata().setResourceVersion(null);
      return shipped;
    }
  }

  /**
   * Waits until the apiserver calls the webhook: its failure policy is Ignore, so until the
   * apiserver has loaded the registration GPU pods would pass unrouted. Probes with dry-run pods.
   */
  private void awaitWebhookInForce(KubernetesClient c) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + COMPONENT_TIMEOUT.toNanos();
    Pod probe =
        new PodBuilder()
            .withNewMetadata()
            .withName("hami-up-webhook-probe")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("probe")
            .withImage("probe")
            .withNewResources()
            .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    String last = "";
    while (System.nanoTime() < deadline) {
      try {
        Pod mutated = c.pods().inNamespace("default").resource(probe).dryRun().create();
        last = "schedulerName " + mutated.getSpec().getSchedulerName();
        if (schedulerName.equals(mutated.getSpec().getSchedulerName())) {
          return;
        }
      } catch (RuntimeException e) {
        last = e.getMessage();
      }
      Thread.sleep(200);
    }
    throw new IOException(
        "the admission webhook was not called within "
            + COMPONENT_TIMEOUT.toSeconds()
            + " s (last probe: "
            + last
            + ")");
  }

  private void startNodes(KubernetesClient c) throws Exception {
    Path dir = spec.workDir().resolve("nodes");
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(NODE_START_THREADS, spec.nodes()));
    try {
      List<Future<GpuNode>> futures = new ArrayList<>();
      for (String name : spec.nodeNames()) {
        futures.add(pool.submit(() -> GpuNode.start(c, dir, name, spec.splitCount(), gpus())));
      }
      @Nullable Exception first = null;
      for (int i = 0; i < futures.size(); i++) {
        try {
          GpuNode n = futures.get(i).get();
          nodes.add(n);
          pushApi("node " + n.name(), n);
        } catch (ExecutionException e) {
          Exception cause = e.getCause() instanceof Exception ex ? ex : e;
          if (first == null) {
            first =
                new IOException(
                    "node " + spec.nodeNames().get(i) + " did not start: " + cause.getMessage(),
                    cause);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      throw e;
    } finally {
      pool.shutdown();
      if (!pool.awaitTermination(COMPONENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        log.warn("node start-up threads still running");
      }
    }
  }

  /**
   * One node's GPUs; the first half on NUMA node 0 and the rest on 1, as in a two-socket server.
   */
  private List<GpuInfo> gpus() {
    List<GpuInfo> out = new ArrayList<>();
    int g = spec.gpusPerNode();
    for (int i = 0; i < g; i++) {
      out.add(
          new GpuInfo(
              i,
              "GPU-" + UUID.randomUUID(),
              spec.gpuModel(),
              spec.gpuMemoryMiB(),
              String.format("00000000:%02X:00.0", 0x18 + i),
              g == 1 ? 0 : i * 2 / g,
              false));
    }
    return out;
  }

  public PlaygroundSpec spec() {
    return spec;
  }

  public HamiHome home() {
    return home;
  }

  public ControlPlane controlPlane() {
    return requireNonNull(controlPlane);
  }

  /** The admin client the components share; closed with the playground. */
  public KubernetesClient client() {
    return requireNonNull(client);
  }

  /** The kubeconfig of the cluster's admin ({@code system:masters}). */
  public Path kubeconfig() {
    return controlPlane().kubeconfig();
  }

  public List<GpuNode> nodes() {
    return List.copyOf(nodes);
  }

  /** The schedulerName the webhook gives GPU pods. */
  public String schedulerName() {
    return schedulerName;
  }

  /** The cluster view's address; empty without the scheduler. */
  public Optional<String> clusterViewUrl() {
    return Optional.ofNullable(clusterViewUrl);
  }

  /** Whether the hami-scheduler runs here (false with {@code --without-scheduler}). */
  public boolean schedulerRunning() {
    return schedulerRunning;
  }

  /** Stops the nodes, webhook, scheduler and control plane, and removes the work directory. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    while (true) {
      Step step;
      synchronized (started) {
        step = started.poll();
      }
      if (step == null) {
        break;
      }
      ControlPlane cp = controlPlane;
      if (step.needsApi() && cp != null && !cp.isRunning()) {
        // Killed from outside (e.g. a signal to the whole process group): every API call would
        // wait for its timeout, and the objects go with the cluster anyway.
        log.warn("not stopping {} through the apiserver: the control plane is down", step.what());
        continue;
      }
      try {
        step.closer().close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        log.warn("stopping {}: {}", step.what(), e.toString());
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(exitHook);
    } catch (IllegalStateException exiting) {
      // The JVM is exiting; the hook has run or runs now.
    }
  }

  /** At JVM exit without {@link #close}: what must not outlive the JVM, the processes and files. */
  private void closeForExit() {
    ControlPlane cp = controlPlane;
    if (cp != null) {
      cp.close();
    }
    deleteTree(spec.workDir());
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.warn("could not remove {}: {}", root, e.getMessage());
    }
  }
}
