package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
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
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One cluster benchmark run: nodes (light or with node agents), the scheduler under test in its own
 * process, pods created at the workload's rate while churn and unschedulable pods run beside them;
 * then the same pods without GPU requests through ours and through kube-scheduler ({@link
 * NonGpuRun}), and the GPU pods again bound by the API ceiling, each phase from the same cluster.
 * Measures bind throughput (average and per-second percentiles), create-to-bind latency, the
 * binder's requests per pod by verb, its CPU time and heap. A {@code pods.template} workload runs
 * as a {@link TemplateRun}.
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
   * @param settings what the scheduler under test changes in the shipped configuration
   * @param out progress lines
   */
  record Options(
      Workload workload,
      @Nullable Path kubeconfig,
      Path root,
      Path jar,
      Baselines baselines,
      SchedulerProcess.Settings settings,
      boolean backlog,
      boolean kubeSchedulerFirst,
      PrintWriter out) {
    boolean ceiling() {
      return baselines.ceiling();
    }
  }

  /**
   * @param ceiling whether to run the API ceiling (GPU workloads)
   * @param nonGpu whether to run ours again on the pods without GPU requests (GPU workloads)
   * @param kubeScheduler the kube-scheduler binary to run as a baseline; null for none
   */
  record Baselines(boolean ceiling, boolean nonGpu, @Nullable Path kubeScheduler) {
    /** The baselines as {@code --baseline} names them, in the order they run. */
    String describe() {
      List<String> out = new ArrayList<>();
      if (nonGpu) {
        out.add("non-gpu");
      }
      if (kubeScheduler != null) {
        out.add("kube-scheduler " + kubeScheduler);
      }
      if (ceiling) {
        out.add("ceiling");
      }
      return out.isEmpty() ? "none" : String.join(", ", out);
    }
  }

  private final Options o;
  private final Workload w;
  private final Harness h;

  private ClusterBench(Options o, Harness h) {
    this.o = o;
    this.w = o.workload();
    this.h = h;
  }

  static BenchReport run(Options o) throws Exception {
    ControlPlane cp = null;
    try {
      Path kubeconfig = o.kubeconfig();
      Path work;
      if (kubeconfig == null) {
        o.out().println("starting a control plane (etcd, kube-apiserver)");
        o.out().flush();
        cp = ControlPlane.start(ControlPlaneOptions.defaults(o.root().resolve("test-e2e")));
        kubeconfig = cp.kubeconfig();
        work = cp.workDir();
      } else {
        work = Files.createTempDirectory("hami-bench-");
      }
      try (KubernetesClient admin = client(kubeconfig, null)) {
        return new ClusterBench(o, new Harness(admin, o.workload(), o.out()))
            .runOn(kubeconfig, work);
      }
    } finally {
      if (cp != null) {
        cp.close();
      }
    }
  }

  static KubernetesClient client(Path kubeconfig, @Nullable ClientRequestMetrics metrics)
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
    env.put("settings", o.settings().describe());
    env.put(
        "measure",
        o.backlog()
            ? "backlog (measured pods created with the scheduler paused; pods/s and create→bind"
                + " from its resume)"
            : "arrival (measured pods created at podQps while the scheduler runs)");
    KubernetesClient admin = h.admin();
    try (KubernetesClient nodeSide = client(kubeconfig, null)) {
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
          h.say(
              "registering %d light nodes with %d GPUs each",
              w.nodes().count(), w.nodes().gpusPerNode());
          // Each real node serves its own pods; 8 threads for 1,000 nodes served about 8 pods a
          // second under load and held node locks for seconds, which a real cluster does not.
          light = new LightNodes(nodeSide, w.nodes(), NAMESPACE, LIGHT_NODE_THREADS);
          lights.add(light);
          light.start();
          nodeNames.addAll(light.names());
        } else {
          h.say(
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
          return new TemplateRun(o, h, template, kubeconfig, work, env).run();
        }
        BenchPods pods = new BenchPods(w.pods());
        List<Workload.Shape> shapes = pods.draw(w.pods().count(), 42);
        // Every phase warms up with the same shapes, its own pods.
        List<Workload.Shape> warm = pods.draw(w.pods().warmup(), 7);

        h.say("starting the scheduler under test: %s", o.jar());
        BenchReport.Phase ours;
        List<String> violations;
        int[] unsched = new int[2];
        try (SchedulerProcess scheduler =
            SchedulerProcess.start(
                o.jar(),
                kubeconfig,
                SchedulerProcess.shippedConfig(o.root(), o.settings(), work),
                w.scheduler(),
                work.resolve("logs/hami-scheduler.log"),
                STARTUP)) {
          int warmed =
              new ProcessPhase(
                      h, "hami-scheduler", NAMESPACE, BenchPods.SCHEDULER_NAME, o.backlog())
                  .warmUpForMeasure(
                      scheduler,
                      "hami-warmup",
                      warm.size(),
                      i ->
                          BenchPods.pod(NAMESPACE, "hami-warmup-" + i, "hami-warmup", warm.get(i)));
          env.put("warmupPods.hami-scheduler", Integer.toString(warmed));
          ours = measureOurs(admin, scheduler, shapes, light, unsched);
          h.say("checking invariants on %d nodes", nodeNames.size());
          violations = Invariants.check(admin, nodeNames);
          if (!scheduler.isAlive()) {
            h.error("the scheduler exited during the run; log " + scheduler.log());
          }
        }
        h.deletePods(NAMESPACE, null);

        Baselines b = o.baselines();
        BenchReport.Phase nonGpu = null;
        BenchReport.Phase kube = null;
        BenchReport.Phase ceiling = null;
        if (light == null) {
          if (b.nonGpu() || b.kubeScheduler() != null || b.ceiling()) {
            h.error("baselines not run: they need light nodes (nodes.kind: light)");
          }
        } else {
          // The same pods without GPU requests, through ours and through kube-scheduler, each
          // from the cluster the GPU phase started from (deletePods waited for every pod to go).
          NonGpuRun plain = new NonGpuRun(o, h, kubeconfig, work, warm, shapes, env);
          if (b.nonGpu()) {
            nonGpu = plain.ours();
          }
          Path binary = b.kubeScheduler();
          if (binary != null) {
            env.put("kubeScheduler", binary.toString());
            kube = plain.kubeScheduler(binary);
          }
          if (b.ceiling()) {
            ceiling =
                new CeilingPhase(h, o.backlog(), o.settings().lockFree())
                    .measure(
                        kubeconfig,
                        admin,
                        shapes,
                        new ArrayList<>(light.names()),
                        offer -> warmUpCeiling(admin, warm, offer));
            h.deletePods(NAMESPACE, null);
          }
          if (light.errors() > 0) {
            h.error(light.errors() + " node-side failures (see log)");
          }
        }
        agents.forEach(
            a ->
                a.allocateErrors()
                    .forEach((uid, e) -> h.error("Allocate of pod " + uid + ": " + e)));

        int unbound = unbound(ours) + unbound(nonGpu) + unbound(kube);
        return BenchReport.of(
            w,
            env,
            new BenchReport.Phases(ours, nonGpu, kube, ceiling),
            new BenchReport.Checks(violations, unbound, unsched[0], unsched[1], h.errors()));
      } finally {
        cleanUp.run();
        Runtime.getRuntime().removeShutdownHook(hook);
      }
    }
  }

  private static int unbound(BenchReport.@Nullable Phase p) {
    return p == null ? 0 : p.created() - p.bound();
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
        h.say("closing the light nodes failed: %s", e);
      }
    }
    if (o.kubeconfig() != null) {
      try {
        h.deletePods(NAMESPACE, null);
      } catch (RuntimeException e) {
        h.say("deleting the bench pods failed: %s", e);
      }
      for (LightNodes l : lights) {
        l.deleteAll();
        if (!l.created().isEmpty()) {
          h.say("%d bench nodes could not be deleted: %s", l.created().size(), l.created());
        }
      }
    }
    for (GpuNode a : agents) {
      try {
        a.close();
      } catch (Exception e) {
        h.say("stopping node %s failed: %s", a.name(), e);
      }
    }
  }

  static String fmt(double d) {
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
    h.deletePods(NAMESPACE, null);
  }

  /**
   * Binds warm-up pods of {@code shapes} through the API ceiling's binder ({@code offer}), then
   * deletes them: its client and the API server are measured warm, as the schedulers are.
   */
  private void warmUpCeiling(
      KubernetesClient admin, List<Workload.Shape> shapes, Consumer<Pod> offer) throws Exception {
    int n = shapes.size();
    if (n == 0) {
      return;
    }
    String group = "ceiling-warmup";
    h.say("warming up with %d pods (%s)", n, group);
    try (BindTracker tracker = new BindTracker(admin, NAMESPACE, group, System::nanoTime)) {
      tracker.start();
      new PodCreator(admin, NAMESPACE, CEILING_SCHEDULER)
          .createAll(shapes, group, w.pods().qps(), w.pods().clients(), tracker, offer);
      String stopped = h.awaitBound(tracker, () -> true);
      if (stopped != null) {
        h.error(
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
    h.deletePods(NAMESPACE, null);
  }

  /**
   * Threads that play the node side of every light node (Allocate's lock release and bind-phase).
   */
  static final int LIGHT_NODE_THREADS = 64;

  private BenchReport.Phase measureOurs(
      KubernetesClient admin,
      SchedulerProcess scheduler,
      List<Workload.Shape> shapes,
      @Nullable LightNodes light,
      int[] unsched)
      throws Exception {
    PromText before = scheduler.scrape();
    OptionalDouble jitBefore = CompilerCpu.seconds(scheduler.pid());
    // The scheduler's heap, sampled each second by a timer thread.
    List<Double> heapMiB = Collections.synchronizedList(new ArrayList<>());
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
                  heapMiB.add(
                      t.sum("jvm_memory_used_bytes", l -> "heap".equals(l.get("area")))
                          / (1 << 20));
                } catch (IOException | InterruptedException | RuntimeException e) {
                  // a missed sample; the next second tries again
                }
              },
              0,
              1,
              TimeUnit.SECONDS);
      var unusedProgress =
          timers.scheduleAtFixedRate(
              () -> h.say("  %s: %s", tracker.group(), tracker.progress()), 5, 5, TimeUnit.SECONDS);
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
      h.say(
          "creating %d pods at %s/s with %d clients%s",
          shapes.size(),
          fmt(w.pods().qps()),
          w.pods().clients(),
          o.backlog() ? ", the scheduler paused" : "");
      Backlog.hold(
          o.backlog() ? scheduler : null,
          tracker,
          () ->
              creator.createAll(
                  shapes, "hami", w.pods().qps(), w.pods().clients(), tracker, p -> {}));
      String stopped = h.awaitBound(tracker, scheduler::isAlive);
      if (stopped != null) {
        h.error(tracker.pending() + " measured pods unbound (" + stopped + ")");
      }
      timers.shutdownNow();
      timers.awaitTermination(10, TimeUnit.SECONDS);
      if (creator.failures() > 0) {
        h.error(creator.failures() + " pod creates failed");
      }
      PromText after = scheduler.scrape();
      unsched[0] = unschedTracker.createdCount();
      unsched[1] = unschedTracker.boundCount();
      Map<String, Double> requests = PhaseFigures.requestDelta(before, after);
      double handshakeWrites =
          after.sum(PhaseFigures.HANDSHAKE_WRITES) - before.sum(PhaseFigures.HANDSHAKE_WRITES);
      double cpu = after.sum(PhaseFigures.CPU_SECONDS) - before.sum(PhaseFigures.CPU_SECONDS);
      Map<String, Double> internals = PhaseFigures.internals(before, after);
      OptionalDouble jitAfter = CompilerCpu.seconds(scheduler.pid());
      if (jitBefore.isPresent() && jitAfter.isPresent()) {
        internals.put("jitCpuSeconds", jitAfter.getAsDouble() - jitBefore.getAsDouble());
      }
      List<Double> heap = List.copyOf(heapMiB);
      return PhaseFigures.phase(
          "hami-scheduler", tracker, requests, handshakeWrites, cpu, Stats.of(heap), internals);
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
      h.errorUpTo(20, "churn: " + e.getMessage());
    }
  }

  /** Starts the scheduler of a phase. */
  @FunctionalInterface
  interface Starter {
    ScrapedProcess start() throws IOException, InterruptedException;
  }

  /** How long a scheduler may take to start and report ready. */
  static final Duration STARTUP = Duration.ofMinutes(3);
}
