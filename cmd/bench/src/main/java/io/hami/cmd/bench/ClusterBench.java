package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.ControlPlaneOptions;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.framework.runtime.ClientRequestMetrics;
import io.hami.kube.KubeClients;
import io.hami.kube.cli.ClusterOptions;
import io.hami.nodeagent.nvml.GpuInfo;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One cluster benchmark run: nodes (light or with node agents), the scheduler under test in its own
 * process, pods created at the workload's rate while churn and unschedulable pods run beside them,
 * then the same pods again bound by the API ceiling. Measures bind throughput (average and
 * per-second percentiles), create-to-bind latency, the scheduler's requests per pod by verb, its
 * CPU time and heap.
 */
final class ClusterBench {
  static final String NAMESPACE = "hami-bench";
  static final String CEILING_SCHEDULER = "hami-bench-ceiling";

  /**
   * @param workload what to run
   * @param kubeconfig an existing cluster; null to start a control plane
   * @param root the repository root
   * @param jar the hami jar that runs the scheduler
   * @param baselines what else binds the same pods
   * @param out progress lines
   */
  record Options(
      Workload workload,
      @Nullable Path kubeconfig,
      Path root,
      Path jar,
      Baselines baselines,
      PrintWriter out) {
    boolean ceiling() {
      return baselines.ceiling();
    }
  }

  /**
   * @param ceiling whether to run the API ceiling
   * @param kubeScheduler the kube-scheduler binary to run as a baseline; null for none
   */
  record Baselines(boolean ceiling, @Nullable Path kubeScheduler) {}

  private final Options o;
  private final Workload w;
  private final List<String> errors = new ArrayList<>();

  private ClusterBench(Options o) {
    this.o = o;
    this.w = o.workload();
  }

  static BenchReport run(Options o) throws Exception {
    return new ClusterBench(o).run();
  }

  private void say(String fmt, Object... args) {
    o.out().printf(Locale.ROOT, fmt + "%n", args);
    o.out().flush();
  }

  private BenchReport run() throws Exception {
    ControlPlane cp = null;
    try {
      Path kubeconfig = o.kubeconfig();
      Path work;
      if (kubeconfig == null) {
        say("starting a control plane (etcd, kube-apiserver)");
        cp = ControlPlane.start(ControlPlaneOptions.defaults(o.root().resolve("test-e2e")));
        kubeconfig = cp.kubeconfig();
        work = cp.workDir();
      } else {
        work = Files.createTempDirectory("hami-bench-");
      }
      return runOn(kubeconfig, work);
    } finally {
      if (cp != null) {
        cp.close();
      }
    }
  }

  private static KubernetesClient client(Path kubeconfig, @Nullable ClientRequestMetrics metrics)
      throws IOException {
    Config config = ClusterOptions.of(kubeconfig).config();
    config.setRequestTimeout(60_000);
    return (metrics == null ? KubeClients.builder(config) : metrics.clientBuilder(config)).build();
  }

  private BenchReport runOn(Path kubeconfig, Path work) throws Exception {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    env.put("java", System.getProperty("java.version"));
    env.put(
        "controlPlane",
        o.kubeconfig() == null ? "local etcd + kube-apiserver" : "kubeconfig " + o.kubeconfig());
    env.put("podQps", fmt(w.pods().qps()));
    env.put("creatingClients", Integer.toString(w.pods().clients()));
    env.put("schedulerKubeQps", fmt(w.scheduler().kubeQps()));
    env.put("bindingThreads", Integer.toString(w.scheduler().bindingThreads()));
    env.put("schedulerHeapMiB", Integer.toString(w.scheduler().heapMiB()));
    try (KubernetesClient admin = client(kubeconfig, null);
        KubernetesClient nodeSide = client(kubeconfig, null)) {
      prepareNamespace(admin);
      List<GpuNode> agents = new CopyOnWriteArrayList<>();
      List<LightNodes> lights = new CopyOnWriteArrayList<>();
      LightNodes light = null;
      Set<String> nodeNames = new HashSet<>();
      // Every node the run made goes, however it ends: normally, on an exception, or when the JVM
      // is stopped (Ctrl-C) mid-run, which skips finally blocks but runs shutdown hooks.
      Runnable cleanUp = once(() -> removeNodes(admin, lights, agents));
      Thread hook = new Thread(cleanUp, "hami-bench-cleanup");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        if (w.nodes().kind() == Workload.NodeKind.LIGHT) {
          say(
              "registering %d light nodes with %d GPUs each",
              w.nodes().count(), w.nodes().gpusPerNode());
          // Each real node serves its own pods; 8 threads for 1,000 nodes served about 8 pods a
          // second under load and held node locks for seconds, which a real cluster does not.
          light = new LightNodes(nodeSide, w.nodes(), NAMESPACE, LIGHT_NODE_THREADS);
          lights.add(light);
          light.start();
          nodeNames.addAll(light.names());
        } else {
          say(
              "starting %d nodes with node agents and %d GPUs each",
              w.nodes().count(), w.nodes().gpusPerNode());
          Path dir = Files.createTempDirectory("hb");
          for (int i = 0; i < w.nodes().count(); i++) {
            List<GpuInfo> gpus = new ArrayList<>();
            for (int g = 0; g < w.nodes().gpusPerNode(); g++) {
              gpus.add(GpuNode.gpu(g, w.nodes().gpuMemoryMiB()));
            }
            GpuNode n =
                GpuNode.start(nodeSide, dir, LightNodes.nodeName(i), w.nodes().splitCount(), gpus);
            agents.add(n);
            nodeNames.add(n.name());
          }
        }
        PerfWorkload template = w.pods().template();
        if (template != null) {
          return new TemplateRun(template, kubeconfig, admin, work, env).run();
        }
        BenchPods pods = new BenchPods(w.pods());
        List<Workload.Shape> shapes = pods.draw(w.pods().count(), 42);

        say("starting the scheduler under test: %s", o.jar());
        BenchReport.Phase ours;
        List<String> violations;
        int[] unsched = new int[2];
        try (SchedulerProcess scheduler =
            SchedulerProcess.start(
                o.jar(),
                kubeconfig,
                o.root().resolve("config/scheduler/scheduler-config.yaml"),
                w.scheduler(),
                work.resolve("logs/hami-scheduler.log"),
                Duration.ofMinutes(3))) {
          warmUp(admin, BenchPods.SCHEDULER_NAME, "hami-warmup", p -> {}, scheduler::isAlive);
          ours = measureOurs(admin, scheduler, shapes, light, unsched);
          say("checking invariants on %d nodes", nodeNames.size());
          violations = Invariants.check(admin, nodeNames);
          if (!scheduler.isAlive()) {
            errors.add("the scheduler exited during the run; log " + scheduler.log());
          }
        }
        deletePods(admin);

        BenchReport.Phase ceiling = null;
        if (o.ceiling() && light != null) {
          ceiling = measureCeiling(kubeconfig, admin, shapes, new ArrayList<>(light.names()));
          deletePods(admin);
        } else if (o.ceiling()) {
          errors.add("API ceiling not run: it needs light nodes (nodes.kind: light)");
        }
        if (light != null && light.errors() > 0) {
          errors.add(light.errors() + " node-side failures (see log)");
        }
        agents.forEach(
            a ->
                a.allocateErrors()
                    .forEach((uid, e) -> errors.add("Allocate of pod " + uid + ": " + e)));

        Double ratio =
            ceiling == null || ceiling.podsPerSecond() == 0
                ? null
                : ours.podsPerSecond() / ceiling.podsPerSecond();
        int unbound = ours.created() - ours.bound();
        return new BenchReport(
            w.name(),
            w.nodes().count(),
            w.pods().count(),
            env,
            ours,
            ceiling,
            ratio,
            null,
            null,
            new BenchReport.Checks(
                violations, unbound, unsched[0], unsched[1], List.copyOf(errors)));
      } finally {
        cleanUp.run();
        Runtime.getRuntime().removeShutdownHook(hook);
      }
    }
  }

  /** {@code r}, run at most once, whichever thread gets there first. */
  static Runnable once(Runnable r) {
    AtomicBoolean done = new AtomicBoolean();
    return () -> {
      if (done.compareAndSet(false, true)) {
        r.run();
      }
    };
  }

  /**
   * Stops the node side and, on a cluster we did not start, deletes the run's pods and every node
   * it created, so that the cluster is left as we found it (our own control plane goes away with
   * all of them). Each step runs even when an earlier one fails.
   */
  private void removeNodes(KubernetesClient admin, List<LightNodes> lights, List<GpuNode> agents) {
    for (LightNodes l : lights) {
      try {
        l.close();
      } catch (RuntimeException e) {
        say("closing the light nodes failed: %s", e);
      }
    }
    if (o.kubeconfig() != null) {
      try {
        deletePods(admin);
      } catch (RuntimeException e) {
        say("deleting the bench pods failed: %s", e);
      }
      for (LightNodes l : lights) {
        l.deleteAll();
        if (!l.created().isEmpty()) {
          say("%d bench nodes could not be deleted: %s", l.created().size(), l.created());
        }
      }
    }
    for (GpuNode a : agents) {
      try {
        a.close();
      } catch (Exception e) {
        say("stopping node %s failed: %s", a.name(), e);
      }
    }
  }

  private static String fmt(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  private void prepareNamespace(KubernetesClient admin) {
    if (admin.namespaces().withName(NAMESPACE).get() == null) {
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
          .create();
    }
    if (admin.serviceAccounts().inNamespace(NAMESPACE).withName("default").get() == null) {
      try {
        admin
            .serviceAccounts()
            .inNamespace(NAMESPACE)
            .resource(
                new ServiceAccountBuilder()
                    .withNewMetadata()
                    .withName("default")
                    .endMetadata()
                    .build())
            .create();
      } catch (KubernetesClientException e) {
        // A controller manager creates it too; whoever comes second finds it there.
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    deletePods(admin);
  }

  /** Removes every pod of the namespace at once (no kubelet waits for them). */
  private void deletePods(KubernetesClient admin) {
    admin.pods().inNamespace(NAMESPACE).withGracePeriod(0).delete();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (!admin.pods().inNamespace(NAMESPACE).list().getItems().isEmpty()
        && System.nanoTime() < deadline) {
      sleep(500);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Binds the workload's warm-up pods (another draw of its shapes) through the scheduler named
   * {@code schedulerName}, or through {@code offer} when that is the harness's own binder, then
   * deletes them: what is measured next runs warm, as a long-running scheduler does.
   */
  private void warmUp(
      KubernetesClient admin,
      String schedulerName,
      String group,
      Consumer<Pod> offer,
      BooleanSupplier alive)
      throws Exception {
    int n = w.pods().warmup();
    if (n == 0) {
      return;
    }
    say("warming up with %d pods (%s)", n, group);
    List<Workload.Shape> shapes = new BenchPods(w.pods()).draw(n, 7);
    try (BindTracker tracker = new BindTracker(admin, NAMESPACE, group, System::nanoTime)) {
      tracker.start();
      new PodCreator(admin, NAMESPACE, schedulerName)
          .createAll(shapes, group, w.pods().qps(), w.pods().clients(), tracker, offer);
      String stopped = awaitBound(tracker, alive);
      if (stopped != null) {
        errors.add(
            group
                + ": "
                + tracker.pending()
                + " of "
                + n
                + " warm-up pods unbound ("
                + stopped
                + ")");
      }
    }
    deletePods(admin);
  }

  /**
   * Threads that play the node side of every light node (Allocate's lock release and bind-phase).
   */
  static final int LIGHT_NODE_THREADS = 64;

  /** How long no pod may bind while others wait before a phase stops waiting for them. */
  static final Duration STALL = Duration.ofSeconds(60);

  /**
   * Waits until every created pod of {@code tracker} is bound. Returns null then, or why it stopped
   * earlier: the workload's timeout, the binder gone, or no bind for {@link #STALL} (pods that fit
   * nowhere would otherwise hold the run until the timeout).
   */
  private @Nullable String awaitBound(BindTracker tracker, BooleanSupplier alive)
      throws InterruptedException {
    long deadline = tracker.firstCreate() + w.timeout().toNanos();
    int last = tracker.boundCount();
    long lastChange = System.nanoTime();
    while (tracker.pending() > 0) {
      long now = System.nanoTime();
      if (now >= deadline) {
        return "timed out after " + w.timeout().toSeconds() + " s";
      }
      if (!alive.getAsBoolean()) {
        return "the binder exited";
      }
      int bound = tracker.boundCount();
      if (bound != last) {
        last = bound;
        lastChange = now;
      } else if (now - lastChange > STALL.toNanos()) {
        return "no pod bound for " + STALL.toSeconds() + " s";
      }
      Thread.sleep(50);
    }
    return null;
  }

  /** Samples of the scheduler's metrics taken each second. */
  private static final class Sampler {
    final List<Double> heapMiB = new ArrayList<>();
  }

  private BenchReport.Phase measureOurs(
      KubernetesClient admin,
      SchedulerProcess scheduler,
      List<Workload.Shape> shapes,
      @Nullable LightNodes light,
      int[] unsched)
      throws Exception {
    PromText before = scheduler.scrape();
    Sampler sampler = new Sampler();
    ScheduledExecutorService timers =
        Executors.newScheduledThreadPool(3, Daemons.named("bench-timer"));
    PodCreator creator = new PodCreator(admin, NAMESPACE, BenchPods.SCHEDULER_NAME);
    try (BindTracker tracker = new BindTracker(admin, NAMESPACE, "hami", System::nanoTime);
        BindTracker unschedTracker =
            new BindTracker(admin, NAMESPACE, "unschedulable", System::nanoTime)) {
      tracker.start();
      unschedTracker.start();
      // The periodic tasks run until timers is shut down below.
      var unusedSampling =
          timers.scheduleAtFixedRate(
              () -> {
                try {
                  PromText t = scheduler.scrape();
                  synchronized (sampler) {
                    sampler.heapMiB.add(
                        t.sum("jvm_memory_used_bytes", l -> "heap".equals(l.get("area")))
                            / (1 << 20));
                  }
                } catch (IOException | InterruptedException | RuntimeException e) {
                  // a missed sample; the next second tries again
                }
              },
              0,
              1,
              TimeUnit.SECONDS);
      var unusedProgress =
          timers.scheduleAtFixedRate(
              () ->
                  say(
                      "  %s: created %d, bound %d, pending %d",
                      tracker.group(),
                      tracker.createdCount(),
                      tracker.boundCount(),
                      tracker.pending()),
              5,
              5,
              TimeUnit.SECONDS);
      Workload.Unschedulable u = w.unschedulable();
      AtomicInteger unschedN = new AtomicInteger();
      if (u != null) {
        var unusedUnschedulable =
            timers.scheduleAtFixedRate(
                () ->
                    creator.createOne(
                        "unschedulable-" + unschedN.getAndIncrement(),
                        "unschedulable",
                        BenchPods.unschedulableShape(w.nodes().gpuMemoryMiB()),
                        unschedTracker,
                        p -> {}),
                u.interval().toMillis(),
                u.interval().toMillis(),
                TimeUnit.MILLISECONDS);
      }
      Workload.Churn churn = w.churn();
      AtomicInteger replacements = new AtomicInteger();
      if (churn != null) {
        SplittableRandom random = new SplittableRandom(7);
        var unusedChurn =
            timers.scheduleWithFixedDelay(
                () -> churnOnce(admin, creator, tracker, light, churn, random, replacements),
                churn.interval().toMillis(),
                churn.interval().toMillis(),
                TimeUnit.MILLISECONDS);
      }
      say(
          "creating %d pods at %s/s with %d clients",
          shapes.size(), fmt(w.pods().qps()), w.pods().clients());
      creator.createAll(shapes, "hami", w.pods().qps(), w.pods().clients(), tracker, p -> {});
      String stopped = awaitBound(tracker, scheduler::isAlive);
      if (stopped != null) {
        errors.add(tracker.pending() + " measured pods unbound (" + stopped + ")");
      }
      timers.shutdownNow();
      timers.awaitTermination(10, TimeUnit.SECONDS);
      if (creator.failures() > 0) {
        errors.add(creator.failures() + " pod creates failed");
      }
      PromText after = scheduler.scrape();
      unsched[0] = unschedTracker.createdCount();
      unsched[1] = unschedTracker.boundCount();
      Map<String, Double> requests = PhaseFigures.requestDelta(before, after);
      double handshakeWrites =
          after.sum(PhaseFigures.HANDSHAKE_WRITES) - before.sum(PhaseFigures.HANDSHAKE_WRITES);
      double cpu = after.sum("process_cpu_seconds_total") - before.sum("process_cpu_seconds_total");
      List<Double> heap;
      synchronized (sampler) {
        heap = List.copyOf(sampler.heapMiB);
      }
      return PhaseFigures.phase(
          "hami-scheduler",
          tracker,
          requests,
          handshakeWrites,
          cpu,
          Stats.of(heap),
          PhaseFigures.internals(before, after));
    } finally {
      timers.shutdownNow();
    }
  }

  private void churnOnce(
      KubernetesClient admin,
      PodCreator creator,
      BindTracker tracker,
      @Nullable LightNodes light,
      Workload.Churn churn,
      SplittableRandom random,
      AtomicInteger replacements) {
    try {
      List<String> bound = new ArrayList<>(tracker.boundLive());
      for (int i = 0; i < churn.pods() && !bound.isEmpty(); i++) {
        String name = bound.remove(random.nextInt(bound.size()));
        tracker.deletedOnPurpose(name);
        admin.pods().inNamespace(NAMESPACE).withName(name).withGracePeriod(0).delete();
        Workload.Shape shape = w.pods().shapes().get(random.nextInt(w.pods().shapes().size()));
        creator.createOne(
            "hami-r" + replacements.getAndIncrement(), "hami", shape, tracker, p -> {});
      }
      if (light != null && churn.nodes() > 0) {
        List<String> names = new ArrayList<>(light.names());
        for (int i = 0; i < churn.nodes() && !names.isEmpty(); i++) {
          String node = names.remove(random.nextInt(names.size()));
          for (String pod : tracker.boundLive()) {
            if (node.equals(tracker.nodeOf(pod))) {
              tracker.deletedOnPurpose(pod);
            }
          }
          light.delete(node);
          light.register(node);
        }
      }
    } catch (KubernetesClientException e) {
      synchronized (errors) {
        if (errors.size() < 20) {
          errors.add("churn: " + e.getMessage());
        }
      }
    }
  }

  private BenchReport.Phase measureCeiling(
      Path kubeconfig, KubernetesClient admin, List<Workload.Shape> shapes, List<String> nodes)
      throws Exception {
    say("API ceiling: binding the same %d pods round-robin without scheduling", shapes.size());
    ClientRequestMetrics metrics = new ClientRequestMetrics();
    PrometheusRegistry registry = new PrometheusRegistry();
    metrics.register(registry);
    try (KubernetesClient binderClient = client(kubeconfig, metrics);
        CeilingBinder binder =
            new CeilingBinder(
                binderClient, nodes, w.nodes().gpusPerNode(), w.scheduler().bindingThreads());
        BindTracker tracker = new BindTracker(admin, NAMESPACE, "ceiling", System::nanoTime)) {
      warmUp(admin, CEILING_SCHEDULER, "ceiling-warmup", binder::offer, () -> true);
      Map<String, Double> warm = PhaseFigures.counts(registry);
      tracker.start();
      ScheduledExecutorService progress =
          Executors.newSingleThreadScheduledExecutor(Daemons.named("bench-progress"));
      // Runs until progress is shut down below.
      var unusedProgress =
          progress.scheduleAtFixedRate(
              () ->
                  say(
                      "  %s: created %d, bound %d, pending %d",
                      tracker.group(),
                      tracker.createdCount(),
                      tracker.boundCount(),
                      tracker.pending()),
              5,
              5,
              TimeUnit.SECONDS);
      PodCreator creator = new PodCreator(admin, NAMESPACE, CEILING_SCHEDULER);
      Consumer<Pod> offer = binder::offer;
      creator.createAll(shapes, "ceiling", w.pods().qps(), w.pods().clients(), tracker, offer);
      String stopped = awaitBound(tracker, () -> true);
      if (stopped != null) {
        errors.add("API ceiling: " + tracker.pending() + " pods unbound (" + stopped + ")");
      }
      progress.shutdownNow();
      if (binder.failures() > 0) {
        errors.add(binder.failures() + " ceiling binds failed");
      }
      Map<String, Double> requests = PhaseFigures.counts(registry);
      warm.forEach((k, v) -> requests.merge(k, -v, Double::sum));
      requests.values().removeIf(v -> v <= 0);
      // The ceiling runs in this JVM, beside the harness; its CPU time is not separable.
      return PhaseFigures.phase("API ceiling", tracker, requests, 0, null, null, Map.of());
    }
  }

  /** Starts the scheduler of a phase. */
  @FunctionalInterface
  private interface Starter {
    ScrapedProcess start() throws IOException, InterruptedException;
  }

  /**
   * A scheduler_perf workload ({@code pods.template}): its objects once, then per phase (ours, then
   * kube-scheduler) the init pods created already bound, the scheduler started, the measured pods
   * created at the workload's rate and measured, the scheduler stopped and every pod deleted, so
   * that each phase starts from the same cluster.
   */
  private final class TemplateRun {
    private final PerfWorkload template;
    private final Path kubeconfig;
    private final KubernetesClient admin;
    private final Path work;
    private final Map<String, String> env;
    private final List<String> nodes = new ArrayList<>();

    TemplateRun(
        PerfWorkload template,
        Path kubeconfig,
        KubernetesClient admin,
        Path work,
        Map<String, String> env) {
      this.template = template;
      this.kubeconfig = kubeconfig;
      this.admin = admin;
      this.work = work;
      this.env = env;
      for (int i = 0; i < w.nodes().count(); i++) {
        nodes.add(LightNodes.nodeName(i));
      }
    }

    BenchReport run() throws Exception {
      env.put("template", template.flag());
      env.put("initPods", Integer.toString(w.pods().init()));
      List<HasMetadata> objects = template.objects(nodes, w.pods().init(), w.pods().count());
      try {
        createObjects(objects);
        BenchReport.Phase ours =
            phase(
                "hami-scheduler",
                BenchPods.SCHEDULER_NAME,
                () ->
                    SchedulerProcess.start(
                        o.jar(),
                        kubeconfig,
                        o.root().resolve("config/scheduler/scheduler-config.yaml"),
                        w.scheduler(),
                        work.resolve("logs/hami-scheduler.log"),
                        Duration.ofMinutes(3)));
        BenchReport.Phase kube = null;
        Path binary = o.baselines().kubeScheduler();
        if (binary != null) {
          env.put("kubeScheduler", binary.toString());
          kube =
              phase(
                  "kube-scheduler",
                  KubeSchedulerProcess.SCHEDULER_NAME,
                  () ->
                      KubeSchedulerProcess.start(
                          binary, kubeconfig, w.scheduler(), work.resolve("logs"), STARTUP));
        }
        Double ratio =
            kube == null || kube.podsPerSecond() == 0
                ? null
                : ours.podsPerSecond() / kube.podsPerSecond();
        int unbound =
            ours.created() - ours.bound() + (kube == null ? 0 : kube.created() - kube.bound());
        return new BenchReport(
            w.name(),
            w.nodes().count(),
            w.pods().count(),
            env,
            ours,
            null,
            null,
            kube,
            ratio,
            new BenchReport.Checks(List.of(), unbound, 0, 0, List.copyOf(errors)));
      } finally {
        if (o.kubeconfig() != null) {
          // A cluster we did not start is left as we found it.
          deleteTemplatePods();
          for (HasMetadata obj : objects) {
            try {
              admin.resource(obj).withGracePeriod(0).delete();
            } catch (KubernetesClientException e) {
              // already gone, or the namespace took it
            }
          }
        }
      }
    }

    /** Creates the workload's namespaces (with a default service account), volumes and CSINodes. */
    private void createObjects(List<HasMetadata> objects) throws Exception {
      say("creating %d objects of %s", objects.size(), template.flag());
      List<HasMetadata> first = new ArrayList<>();
      List<HasMetadata> rest = new ArrayList<>();
      for (HasMetadata obj : objects) {
        (obj instanceof Namespace ? first : rest).add(obj);
      }
      for (HasMetadata ns : first) {
        createIfAbsent(ns);
        createIfAbsent(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("default")
                .withNamespace(ns.getMetadata().getName())
                .endMetadata()
                .build());
      }
      parallel(rest.size(), i -> createWithStatus(rest.get(i)));
    }

    private void createIfAbsent(HasMetadata obj) {
      try {
        admin.resource(obj).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }

    /**
     * Creates an object and, for volumes and claims, writes the status the volume controller would.
     */
    private void createWithStatus(HasMetadata obj) {
      try {
        HasMetadata created = admin.resource(obj).create();
        if (obj instanceof PersistentVolume pv && created instanceof PersistentVolume c) {
          c.setStatus(pv.getStatus());
          admin.persistentVolumes().resource(c).updateStatus();
        } else if (obj instanceof PersistentVolumeClaim pvc
            && created instanceof PersistentVolumeClaim c) {
          c.setStatus(pvc.getStatus());
          admin.persistentVolumeClaims().resource(c).updateStatus();
        }
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }

    /** Runs {@code task(0..n-1)} on the workload's creating clients. */
    private void parallel(int n, IntConsumer task) throws Exception {
      ExecutorService pool =
          Executors.newFixedThreadPool(w.pods().clients(), Daemons.named("bench-objects"));
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          int k = i;
          futures.add(pool.submit(() -> task.accept(k)));
        }
        for (Future<?> f : futures) {
          f.get(5, TimeUnit.MINUTES);
        }
      } finally {
        pool.shutdownNow();
      }
    }

    private Pod labeled(Pod pod, String group) {
      pod.getMetadata().getLabels().put(BenchPods.GROUP_LABEL, group);
      return pod;
    }

    private BenchReport.Phase phase(String name, String schedulerName, Starter starter)
        throws Exception {
      int init = w.pods().init();
      say("%s: creating %d init pods bound round-robin to the nodes", name, init);
      parallel(
          init,
          i -> {
            Pod pod = template.initPod(i, schedulerName);
            pod.getSpec().setNodeName(nodes.get(i % nodes.size()));
            if (pod.getMetadata().getLabels() == null) {
              pod.getMetadata().setLabels(new LinkedHashMap<>());
            }
            labeled(pod, "init");
            admin.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
          });
      say("starting %s", name);
      try (ScrapedProcess scheduler = starter.start()) {
        warmUp(name, schedulerName, scheduler);
        BenchReport.Phase p = measure(name, schedulerName, scheduler);
        if (!scheduler.isAlive()) {
          errors.add(name + " exited during the run; log " + scheduler.log());
        }
        return p;
      } finally {
        deleteTemplatePods();
      }
    }

    /**
     * Schedules {@code pods.warmup} pods of the measured template and deletes them again, so that
     * both schedulers are measured warm (ours JIT-compiled), as long-running schedulers run.
     */
    private void warmUp(String name, String schedulerName, ScrapedProcess scheduler)
        throws Exception {
      int n = w.pods().warmup();
      if (n == 0) {
        return;
      }
      String group = "warmup";
      say("%s: warming up with %d %s pods", name, n, template.flag());
      try (BindTracker tracker =
          new BindTracker(admin, PerfWorkload.NS_MEASURED, group, System::nanoTime)) {
        tracker.start();
        PodCreator creator = new PodCreator(admin, PerfWorkload.NS_MEASURED, schedulerName);
        creator.createAll(
            n,
            i -> labeled(template.measuredPod(i, schedulerName), group),
            new PodCreator.Rate(w.pods().qps(), w.pods().clients()),
            tracker,
            p -> {});
        String stopped = awaitBound(tracker, scheduler::isAlive);
        if (stopped != null) {
          errors.add(name + ": " + tracker.pending() + " warm-up pods unbound (" + stopped + ")");
        }
      }
      admin
          .pods()
          .inNamespace(PerfWorkload.NS_MEASURED)
          .withLabel(BenchPods.GROUP_LABEL, group)
          .withGracePeriod(0)
          .delete();
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (System.nanoTime() < deadline
          && !admin
              .pods()
              .inNamespace(PerfWorkload.NS_MEASURED)
              .withLabel(BenchPods.GROUP_LABEL, group)
              .list()
              .getItems()
              .isEmpty()) {
        sleep(200);
      }
      // The scheduler's informer sees the deletions a moment after the API server lists none.
      sleep(1000);
    }

    private BenchReport.Phase measure(String name, String schedulerName, ScrapedProcess scheduler)
        throws Exception {
      boolean kube = scheduler instanceof KubeSchedulerProcess;
      String group = kube ? "kube-scheduler" : "hami";
      PromText before = scheduler.scrape();
      // Events kube-scheduler had written before: the phase's own are counted exactly, whatever
      // else (a controller-manager, say) writes Events meanwhile.
      Set<String> eventsBefore = kube ? kubeSchedulerEvents() : Set.of();
      List<Double> heap = new ArrayList<>();
      ScheduledExecutorService timers =
          Executors.newScheduledThreadPool(2, Daemons.named("bench-timer"));
      try (BindTracker tracker =
          new BindTracker(admin, PerfWorkload.NS_MEASURED, group, System::nanoTime)) {
        tracker.start();
        // The periodic tasks run until timers is shut down below.
        var unusedSampling =
            timers.scheduleAtFixedRate(
                () -> {
                  try {
                    PromText t = scheduler.scrape();
                    double bytes =
                        kube
                            ? t.sum(PhaseFigures.KUBE_HEAP)
                            : t.sum("jvm_memory_used_bytes", l -> "heap".equals(l.get("area")));
                    synchronized (heap) {
                      heap.add(bytes / (1 << 20));
                    }
                  } catch (IOException | InterruptedException | RuntimeException e) {
                    // a missed sample; the next second tries again
                  }
                },
                0,
                1,
                TimeUnit.SECONDS);
        var unusedProgress =
            timers.scheduleAtFixedRate(
                () ->
                    say(
                        "  %s: created %d, bound %d, pending %d",
                        name, tracker.createdCount(), tracker.boundCount(), tracker.pending()),
                5,
                5,
                TimeUnit.SECONDS);
        say(
            "%s: creating %d %s pods at %s/s with %d clients",
            name, w.pods().count(), template.flag(), fmt(w.pods().qps()), w.pods().clients());
        PodCreator creator = new PodCreator(admin, PerfWorkload.NS_MEASURED, schedulerName);
        creator.createAll(
            w.pods().count(),
            i -> labeled(template.measuredPod(i, schedulerName), group),
            new PodCreator.Rate(w.pods().qps(), w.pods().clients()),
            tracker,
            p -> {});
        String stopped = awaitBound(tracker, scheduler::isAlive);
        if (stopped != null) {
          errors.add(name + ": " + tracker.pending() + " measured pods unbound (" + stopped + ")");
        }
        timers.shutdownNow();
        timers.awaitTermination(10, TimeUnit.SECONDS);
        if (creator.failures() > 0) {
          errors.add(name + ": " + creator.failures() + " pod creates failed");
        }
        PromText after = scheduler.scrape();
        Map<String, Double> requests;
        Map<String, Double> internals;
        double handshakeWrites = 0;
        if (kube) {
          requests = PhaseFigures.kubeRequestDelta(before, after);
          Set<String> written = kubeSchedulerEvents();
          written.removeAll(eventsBefore);
          PhaseFigures.moveToEvents(requests, "create", written.size());
          internals = PhaseFigures.kubeInternals(before, after);
        } else {
          requests = PhaseFigures.requestDelta(before, after);
          handshakeWrites =
              after.sum(PhaseFigures.HANDSHAKE_WRITES) - before.sum(PhaseFigures.HANDSHAKE_WRITES);
          internals = PhaseFigures.internals(before, after);
        }
        double cpu =
            after.sum("process_cpu_seconds_total") - before.sum("process_cpu_seconds_total");
        List<Double> heapSamples;
        synchronized (heap) {
          heapSamples = List.copyOf(heap);
        }
        return PhaseFigures.phase(
            name, tracker, requests, handshakeWrites, cpu, Stats.of(heapSamples), internals);
      } finally {
        timers.shutdownNow();
      }
    }

    /** The UIDs of the Events that kube-scheduler ({@code default-scheduler}) has written. */
    private Set<String> kubeSchedulerEvents() {
      Set<String> out = new HashSet<>();
      for (Event e : admin.v1().events().inAnyNamespace().list().getItems()) {
        String component = e.getSource() == null ? null : e.getSource().getComponent();
        if (KubeSchedulerProcess.SCHEDULER_NAME.equals(e.getReportingComponent())
            || KubeSchedulerProcess.SCHEDULER_NAME.equals(component)) {
          out.add(e.getMetadata().getUid());
        }
      }
      return out;
    }

    /** Deletes the init and measured pods and waits until they are gone. */
    private void deleteTemplatePods() {
      for (String ns : List.of(PerfWorkload.NS_INIT, PerfWorkload.NS_MEASURED)) {
        admin.pods().inNamespace(ns).withGracePeriod(0).delete();
      }
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (System.nanoTime() < deadline
          && !(admin.pods().inNamespace(PerfWorkload.NS_INIT).list().getItems().isEmpty()
              && admin.pods().inNamespace(PerfWorkload.NS_MEASURED).list().getItems().isEmpty())) {
        sleep(500);
      }
    }
  }

  /** How long a scheduler may take to start and report ready. */
  static final Duration STARTUP = Duration.ofMinutes(3);
}
