package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.bench.Workload;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import io.hami.model.Decoded;
import io.hami.model.lock.NodeLock;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soak (issue 22): the MixedChurn workload of {@code config/bench/mixed-churn.yaml} (its pod
 * shapes, its GPUs per node and split count, its churn interval and node churn) run for {@value
 * #MINUTES_PROPERTY} minutes (5 by default, the CI run; 30 for the long run) against the scheduler
 * and four node agents, each in its own JVM as deployed. Scaled to four nodes: the namespace holds
 * as many pods as fill about 41% of the GPU memory, as MixedChurn does; every churn interval
 * {@value #CHURN_PODS_PROPERTY} bound pods (2 by default) are deleted and replaced, and the
 * workload's {@code churn.nodes} GPU-less nodes are deleted and registered again (MixedChurn churns
 * light nodes only; the agents' nodes stay).
 *
 * <p>Every {@value #SAMPLE_PROPERTY} seconds (20 by default up to 10 minutes, else 30) each process
 * is sampled: live threads and heap used right after a full GC, both through JMX ({@code
 * MemoryMXBean.gc()}), open file descriptors from {@code /proc/<pid>/fd}, and the scheduler's
 * running informers from its {@code hami_scheduler_informers} gauge (the node agent runs no
 * informers: it lists its node's pods). The line fitted by least squares to the last third of the
 * samples must stay flat: over that third it may rise by at most {@link #MAX_THREAD_RISE} threads
 * ({@link #MAX_THREAD_RISE_SHORT} when the third lasts under {@link #SHORT_WINDOW_SECONDS} s),
 * {@link #MAX_HEAP_RISE_MIB} MiB of heap and {@link #MAX_FD_RISE} descriptors (a rise of
 * descriptors counts only when the last third also tops every earlier sample by more than that: a
 * connection opened once late in a short run is a step, not a leak), and the informer count must
 * not change. The invariants (no device over-committed against the register annotation, no node
 * lock older than {@link #STALE_LOCK}, no Allocate failure) are checked at every sample; at the end
 * every pod is bound and running, or pending with an Unschedulable reason, and the scheduler bound
 * no more pods than were created.
 *
 * <p>The samples and slopes are printed as lines starting {@code soak:} and written to {@code
 * target/soak/}.
 */
@ExtendWith(ControlPlaneExtension.class)
class SoakE2E {
  static final String MINUTES_PROPERTY = "hami.e2e.soakMinutes";
  static final String SAMPLE_PROPERTY = "hami.e2e.soakSampleSeconds";
  static final String CHURN_PODS_PROPERTY = "hami.e2e.soakChurnPods";

  static final int MAX_THREAD_RISE = 3;

  /**
   * The thread rise allowed when the last third is shorter than {@link #SHORT_WINDOW_SECONDS}: an
   * on-demand pool (gRPC's server executor keeps idle threads for 60 s) can grow by a few threads
   * within such a window without leaking; the long run holds {@link #MAX_THREAD_RISE}.
   */
  static final int MAX_THREAD_RISE_SHORT = 8;

  static final double SHORT_WINDOW_SECONDS = 180;
  static final double MAX_HEAP_RISE_MIB = 8;
  static final int MAX_FD_RISE = 4;
  static final Duration STALE_LOCK = Duration.ofSeconds(60);

  private static final int AGENTS = 4;
  private static final String SCHEDULER_NAME = "hami-soak";
  private static final String GROUP = "e2e.hami.io/soak";
  private static final Duration PATIENCE = Duration.ofSeconds(120);
  private static final double MIB = 1 << 20;

  static {
    // One JMX connection per process, kept open between samples: an RMI connection closed after
    // the default 15 s idle would start a new server thread in the process at every sample.
    System.setProperty("sun.rmi.transport.connectionTimeout", "3600000");
  }

  @TempDir static Path dir;

  private final List<GpuNode> nodes = new ArrayList<>();
  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private final List<String> lightNodes = new ArrayList<>();

  @AfterEach
  void stopEverything(KubernetesClient client, TestNamespace ns) throws Exception {
    try {
      client.pods().inNamespace(ns.name()).withGracePeriod(0).delete();
      for (GpuNode n : nodes) {
        n.close();
      }
      for (String n : lightNodes) {
        client.nodes().withName(n).delete();
      }
    } finally {
      Collections.reverse(closeLast);
      for (AutoCloseable c : closeLast) {
        c.close();
      }
      closeLast.clear();
      nodes.clear();
      lightNodes.clear();
    }
  }

  private static int intProperty(String name, int fallback) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < 1) {
        throw new IllegalArgumentException(name + ": must be at least 1, got " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": not a whole number: " + v, e);
    }
  }

  @Test
  void mixedChurn_schedulerAndFourAgentProcesses_stayFlat_withoutViolations(
      ControlPlane cp, KubernetesClient client, TestNamespace ns) throws Exception {
    int minutes = intProperty(MINUTES_PROPERTY, 5);
    int sampleSeconds = intProperty(SAMPLE_PROPERTY, minutes <= 10 ? 20 : 30);
    int churnPods = intProperty(CHURN_PODS_PROPERTY, 2);
    Path root = ControlPlaneExtension.moduleDir().toAbsolutePath().getParent();
    Workload w = Workload.load(root.resolve("config/bench/mixed-churn.yaml"));
    Workload.Churn churn = w.churn();
    assertThat(churn).as("MixedChurn churns").isNotNull();
    Workload.Nodes shape = w.nodes();
    int population = population(w);
    say(
        "MixedChurn for %d min: %d agent nodes x %d GPUs of %d MiB split %d, %d pods, every %d ms"
            + " %d pods and %d GPU-less nodes replaced, a sample every %d s",
        minutes,
        AGENTS,
        shape.gpusPerNode(),
        shape.gpuMemoryMiB(),
        shape.splitCount(),
        population,
        churn.interval().toMillis(),
        churnPods,
        churn.nodes(),
        sampleSeconds);

    // The scheduler, under its own name so that no other scheduler of the run takes its pods.
    Path config =
        SchedulerProcess.configWith(
            dir, "soak-scheduler.yaml", Map.of("- schedulerName", SCHEDULER_NAME));
    int schedulerJmx = freePort();
    SchedulerProcess scheduler =
        SchedulerProcess.start(cp, config, "soak", false, jmxOptions(schedulerJmx));
    closeLast.add(scheduler);
    List<Probe> probes = new ArrayList<>();
    probes.add(Probe.connect("scheduler", scheduler.pid(), schedulerJmx));
    closeLast.add(probes.get(0));

    // The nodes: a kubelet here, the agent in its own process.
    List<AgentProcess> agents = new ArrayList<>();
    for (int i = 0; i < AGENTS; i++) {
      String name = ns.name() + "-gpu-" + i;
      GpuNode node =
          GpuNode.startWithoutAgent(client, dir, FakeNode.named(name).label(GROUP, ns.name()));
      nodes.add(node);
      int jmx = freePort();
      AgentProcess agent =
          AgentProcess.start(
              cp,
              dir,
              name,
              shape.gpusPerNode() + "xNVIDIA-Tesla-T4:" + shape.gpuMemoryMiB() + "MiB",
              shape.splitCount(),
              jmxOptions(jmx),
              "127.0.0.1:" + freePort());
      closeLast.add(agent);
      agents.add(agent);
      int want = shape.gpusPerNode() * shape.splitCount();
      node.kubelet()
          .awaitDevices(
              GpuNode.RESOURCE,
              d -> d.size() == want && d.stream().allMatch(x -> "Healthy".equals(x.getHealth())),
              PATIENCE);
      await()
          .atMost(PATIENCE)
          .until(
              () -> Invariants.registered(client.nodes().withName(name).get()).size(),
              n -> n == shape.gpusPerNode());
      Probe p = Probe.connect("agent-" + i, agent.pid(), jmx);
      closeLast.add(p);
      probes.add(p);
    }
    for (int i = 0; i < Math.max(churn.nodes(), 1); i++) {
      String name = ns.name() + "-light-" + i;
      lightNode(name).register(client);
      lightNodes.add(name);
    }
    Set<String> gpuNodes = new LinkedHashSet<>();
    nodes.forEach(n -> gpuNodes.add(n.name()));

    Churner churner = new Churner(client, ns.name(), w.pods().shapes(), population, churnPods);
    churner.topUp();
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> churner.census().settled());
    say("%d pods placed: %s; churn starts", population, churner.census());

    List<Sample> samples = new ArrayList<>();
    List<String> violations = new ArrayList<>();
    ScheduledExecutorService churnLoop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "soak-churn");
              t.setDaemon(true);
              return t;
            });
    long start = System.nanoTime();
    long durationNanos = TimeUnit.MINUTES.toNanos(minutes);
    try {
      // At MixedChurn's rate; an interval whose API calls take longer is followed at once by the
      // next, never overlapped by it.
      var unusedChurn =
          churnLoop.scheduleAtFixedRate(
              () -> churner.churnOnce(lightNodes),
              churn.interval().toMillis(),
              churn.interval().toMillis(),
              TimeUnit.MILLISECONDS);
      for (int k = 0; ; k++) {
        long due = start + TimeUnit.SECONDS.toNanos((long) k * sampleSeconds);
        if (due > start + durationNanos) {
          break;
        }
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        double t = (System.nanoTime() - start) / 1e9;
        assertThat(scheduler.isAlive()).as("scheduler alive at %.0f s", t).isTrue();
        for (AgentProcess a : agents) {
          assertThat(a.isAlive()).as("%s alive at %.0f s; log %s", a, t, a.log()).isTrue();
        }
        Census census = churner.census();
        int informers = (int) scheduler.metric("hami_scheduler_informers", "");
        double scheduled = scheduler.scheduled();
        for (Probe p : probes) {
          Sample s =
              new Sample(
                  k,
                  t,
                  p.name,
                  p.threads(),
                  p.heapAfterGcMiB(),
                  p.fds(),
                  p.name.equals("scheduler") ? informers : -1);
          samples.add(s);
          say("%s", s.line());
        }
        List<String> seen = invariants(client, gpuNodes);
        seen.forEach(v -> violations.add(String.format(Locale.ROOT, "at %.0f s: %s", t, v)));
        say(
            "t=%.0fs cluster: %s; created %d, churned %d, scheduled %.0f, churn errors %d,"
                + " violations %d",
            t,
            census,
            churner.created.get(),
            churner.deleted.get(),
            scheduled,
            churner.errors.get(),
            seen.size());
      }
    } finally {
      churnLoop.shutdownNow();
      churnLoop.awaitTermination(30, TimeUnit.SECONDS);
    }

    // Quiet: every pod settles, every lock is released.
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> churner.census().settled());
    await().atMost(PATIENCE).until(() -> gpuNodes.stream().noneMatch(n -> locked(client, n)));
    Census end = churner.census();
    violations.addAll(invariants(client, gpuNodes));
    violations.addAll(end.unexplained());
    double scheduled = scheduler.scheduled();
    if (scheduled > churner.created.get()) {
      violations.add(
          "the scheduler bound "
              + scheduled
              + " pods but only "
              + churner.created.get()
              + " were created");
    }

    List<String> report = new ArrayList<>();
    report.add(
        String.format(
            Locale.ROOT,
            "soak: MixedChurn %d min, %d agents, %d pods, %d samples every %d s; created %d,"
                + " churned %d, scheduled %.0f, churn errors %d, violations %d",
            minutes,
            AGENTS,
            population,
            samples.size() / probes.size(),
            sampleSeconds,
            churner.created.get(),
            churner.deleted.get(),
            scheduled,
            churner.errors.get(),
            violations.size()));
    List<String> flatness = new ArrayList<>();
    double window = minutes * 60.0 / 3;
    for (Probe p : probes) {
      List<Sample> last =
          samples.stream().filter(s -> s.process.equals(p.name) && s.t >= 2 * window).toList();
      double threads = slopePerMinute(last, s -> s.threads);
      double heap = slopePerMinute(last, s -> s.heapMiB);
      double fds = slopePerMinute(last, s -> s.fds);
      String informers = "n/a";
      if (p.name.equals("scheduler")) {
        informers = String.format(Locale.ROOT, "%+.2f/min", slopePerMinute(last, s -> s.informers));
        long distinct = last.stream().mapToInt(s -> s.informers).distinct().count();
        if (distinct != 1) {
          flatness.add("scheduler informers changed in the last third: " + last);
        }
      }
      report.add(
          String.format(
              Locale.ROOT,
              "soak: slope %-9s last third (%d samples, %.0f s): threads %+.3f/min, heap after GC"
                  + " %+.3f MiB/min, fds %+.3f/min, informers %s",
              p.name,
              last.size(),
              window,
              threads,
              heap,
              fds,
              informers));
      double minutesInWindow = window / 60;
      check(
          flatness,
          p.name,
          "threads",
          threads * minutesInWindow,
          window < SHORT_WINDOW_SECONDS ? MAX_THREAD_RISE_SHORT : MAX_THREAD_RISE);
      check(flatness, p.name, "heap MiB", heap * minutesInWindow, MAX_HEAP_RISE_MIB);
      // A descriptor opened once late in the run (a connection opened on first use) is a step,
      // not a leak: the fitted rise counts only when the last third also climbs above every
      // earlier sample by more than the allowance.
      int fdsBefore =
          samples.stream()
              .filter(s -> s.process.equals(p.name) && s.t < 2 * window)
              .mapToInt(s -> s.fds)
              .max()
              .orElse(0);
      int fdsAbove = last.stream().mapToInt(s -> s.fds).max().orElse(0) - fdsBefore;
      if (fdsAbove > MAX_FD_RISE) {
        check(flatness, p.name, "fds", fds * minutesInWindow, MAX_FD_RISE);
      }
    }
    violations.forEach(v -> report.add("soak: violation " + v));
    flatness.forEach(v -> report.add("soak: not flat " + v));
    report.forEach(System.out::println);
    writeArtifacts(samples, report);

    assertThat(violations).as("invariant violations").isEmpty();
    assertThat(flatness).as("growth over the last third").isEmpty();
    assertThat(churner.created.get()).as("pods created").isGreaterThan(population);
  }

  private static void check(
      List<String> out, String process, String what, double rise, double allowed) {
    if (rise > allowed) {
      out.add(
          String.format(
              Locale.ROOT,
              "%s %s rose %.2f over the last third (at most %.2f)",
              process,
              what,
              rise,
              allowed));
    }
  }

  /**
   * Pods that fill about 41% of the agents' GPU memory with MixedChurn's mix, as MixedChurn fills
   * its nodes.
   */
  private static int population(Workload w) {
    double weight = 0;
    double memory = 0;
    for (Workload.Shape s : w.pods().shapes()) {
      weight += s.weight();
      memory += (double) s.weight() * s.containers() * s.gpus() * s.memoryMiB();
    }
    double perPod = memory / weight;
    double total = (double) AGENTS * w.nodes().gpusPerNode() * w.nodes().gpuMemoryMiB();
    return (int) Math.max(4, Math.round(0.41 * total / perPod));
  }

  private static FakeNode lightNode(String name) {
    return FakeNode.named(name).label(GROUP, "light");
  }

  private static List<String> invariants(KubernetesClient client, Set<String> gpuNodes) {
    List<String> out = new ArrayList<>(Invariants.check(client, gpuNodes));
    OffsetDateTime now = OffsetDateTime.now();
    for (String n : gpuNodes) {
      Node node = client.nodes().withName(n).get();
      String lock =
          node == null || node.getMetadata().getAnnotations() == null
              ? null
              : node.getMetadata().getAnnotations().get(Annotations.MUTEX_LOCK);
      if (lock != null
          && NodeLock.decode(lock) instanceof Decoded.Ok<NodeLock> ok
          && ok.value().time().plus(STALE_LOCK).isBefore(now)) {
        out.add("node " + n + ": lock " + lock + " held over " + STALE_LOCK);
      }
    }
    return out;
  }

  private static boolean locked(KubernetesClient client, String node) {
    Node n = client.nodes().withName(node).get();
    return n != null
        && n.getMetadata().getAnnotations() != null
        && n.getMetadata().getAnnotations().containsKey(Annotations.MUTEX_LOCK);
  }

  /** Least-squares slope of {@code y} against the sample time, per minute; 0 for under 2 points. */
  static double slopePerMinute(
      List<Sample> samples, java.util.function.ToDoubleFunction<Sample> y) {
    int n = samples.size();
    if (n < 2) {
      return 0;
    }
    double mt = samples.stream().mapToDouble(s -> s.t / 60).average().orElse(0);
    double my = samples.stream().mapToDouble(y).average().orElse(0);
    double num = 0;
    double den = 0;
    for (Sample s : samples) {
      double dt = s.t / 60 - mt;
      num += dt * (y.applyAsDouble(s) - my);
      den += dt * dt;
    }
    return den == 0 ? 0 : num / den;
  }

  private static void writeArtifacts(List<Sample> samples, List<String> report) throws IOException {
    Path out = ControlPlaneExtension.moduleDir().resolve("target/soak");
    Files.createDirectories(out);
    List<String> tsv = new ArrayList<>();
    tsv.add("sample\tt_s\tprocess\tthreads\theap_after_gc_mib\tfds\tinformers");
    for (Sample s : samples) {
      tsv.add(
          String.format(
              Locale.ROOT,
              "%d\t%.1f\t%s\t%d\t%.2f\t%d\t%d",
              s.index,
              s.t,
              s.process,
              s.threads,
              s.heapMiB,
              s.fds,
              s.informers));
    }
    Files.write(out.resolve("samples.tsv"), tsv, StandardCharsets.UTF_8);
    Files.write(out.resolve("summary.txt"), report, StandardCharsets.UTF_8);
    System.out.println("soak: artifacts in " + out.toAbsolutePath());
  }

  private static void say(String fmt, Object... args) {
    System.out.printf(Locale.ROOT, "soak: " + fmt + "%n", args);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** JMX on {@code port} of the loopback, registry and server on the same port, no auth. */
  private static List<String> jmxOptions(int port) {
    return List.of(
        "-Dcom.sun.management.jmxremote.port=" + port,
        "-Dcom.sun.management.jmxremote.rmi.port=" + port,
        "-Dcom.sun.management.jmxremote.host=127.0.0.1",
        "-Djava.rmi.server.hostname=127.0.0.1",
        "-Dcom.sun.management.jmxremote.authenticate=false",
        "-Dcom.sun.management.jmxremote.ssl=false");
  }

  /** One sample of one process; {@code informers} is -1 where the process runs none. */
  record Sample(
      int index, double t, String process, int threads, double heapMiB, int fds, int informers) {
    String line() {
      return String.format(
          Locale.ROOT,
          "sample %2d t=%6.1fs %-9s threads %4d heap-after-gc %8.2f MiB fds %4d informers %s",
          index,
          t,
          process,
          threads,
          heapMiB,
          fds,
          informers < 0 ? "n/a" : Integer.toString(informers));
    }
  }

  /** The namespace's pods, counted. */
  record Census(int bound, int pendingWithReason, int pending, List<String> unexplained) {
    /** Every pod is bound and running, or pending with a reason. */
    boolean settled() {
      return pending == 0 && unexplained.isEmpty();
    }

    @Override
    public String toString() {
      return bound
          + " bound, "
          + pendingWithReason
          + " unschedulable, "
          + pending
          + " pending without a verdict yet"
          + (unexplained.isEmpty() ? "" : ", " + unexplained.size() + " unexplained");
    }
  }

  /** MixedChurn's pod side, scaled: replaces bound pods with new ones of the workload's shapes. */
  private static final class Churner {
    private final KubernetesClient client;
    private final String namespace;
    private final List<Workload.Shape> shapes;
    private final int population;
    private final int perTick;
    private final Random random = new Random(42);
    private final AtomicInteger seq = new AtomicInteger();
    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger deleted = new AtomicInteger();
    final AtomicInteger errors = new AtomicInteger();
    private int nodeTick;

    Churner(
        KubernetesClient client,
        String namespace,
        List<Workload.Shape> shapes,
        int population,
        int perTick) {
      this.client = client;
      this.namespace = namespace;
      this.shapes = List.copyOf(shapes);
      this.population = population;
      this.perTick = perTick;
    }

    private List<Pod> live() {
      return client.pods().inNamespace(namespace).list().getItems().stream()
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
          .toList();
    }

    /** Creates pods until the namespace holds {@code population} live ones. */
    void topUp() {
      int missing = population - live().size();
      for (int i = 0; i < missing; i++) {
        create();
      }
    }

    /** One churn interval: bound pods replaced, GPU-less nodes deleted and registered again. */
    void churnOnce(List<String> lightNodes) {
      try {
        List<Pod> bound =
            new ArrayList<>(
                live().stream().filter(p -> p.getSpec().getNodeName() != null).toList());
        Collections.shuffle(bound, random);
        for (Pod p : bound.subList(0, Math.min(perTick, bound.size()))) {
          client.pods().inNamespace(namespace).resource(p).delete();
          deleted.incrementAndGet();
        }
        topUp();
        if (!lightNodes.isEmpty()) {
          String n = lightNodes.get(nodeTick++ % lightNodes.size());
          client.nodes().withName(n).withGracePeriod(0).delete();
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> client.nodes().withName(n).get() == null);
          lightNode(n).register(client);
        }
      } catch (KubernetesClientException | org.awaitility.core.ConditionTimeoutException e) {
        // The next interval tries again; the count is in the report.
        errors.incrementAndGet();
        System.out.println("soak: churn error: " + e);
      }
    }

    private void create() {
      Workload.Shape shape = draw();
      String name = "soak-" + seq.incrementAndGet();
      client.pods().inNamespace(namespace).resource(pod(name, shape)).create();
      created.incrementAndGet();
    }

    private Workload.Shape draw() {
      int total = shapes.stream().mapToInt(Workload.Shape::weight).sum();
      int r = random.nextInt(total);
      for (Workload.Shape s : shapes) {
        r -= s.weight();
        if (r < 0) {
          return s;
        }
      }
      return shapes.get(shapes.size() - 1);
    }

    private Pod pod(String name, Workload.Shape shape) {
      Map<String, Quantity> limits = new LinkedHashMap<>();
      limits.put(GpuNode.RESOURCE, new Quantity(Integer.toString(shape.gpus())));
      limits.put("nvidia.com/gpumem", new Quantity(Integer.toString(shape.memoryMiB())));
      limits.put("nvidia.com/gpucores", new Quantity(Integer.toString(shape.cores())));
      PodBuilder b =
          new PodBuilder()
              .withNewMetadata()
              .withName(name)
              .withNamespace(namespace)
              .withLabels(Map.of("e2e.hami.io/shape", shape.name()))
              .endMetadata()
              .withNewSpec()
              .withSchedulerName(SCHEDULER_NAME)
              .withAutomountServiceAccountToken(false)
              .withTerminationGracePeriodSeconds(GpuPods.TERMINATION_GRACE_SECONDS)
              .withNodeSelector(Map.of(GROUP, namespace))
              .endSpec();
      for (int c = 0; c < shape.containers(); c++) {
        b.editSpec()
            .addToContainers(
                new ContainerBuilder()
                    .withName("cuda-" + c)
                    .withImage("nvidia/cuda:12.4.0-base-ubuntu22.04")
                    .withNewResources()
                    .withLimits(limits)
                    .endResources()
                    .build())
            .endSpec();
      }
      return b.build();
    }

    Census census() {
      int bound = 0;
      int unschedulable = 0;
      int pending = 0;
      List<String> unexplained = new ArrayList<>();
      for (Pod p : live()) {
        String id = p.getMetadata().getName();
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
          unexplained.add(id + ": phase " + phase + " (" + p.getStatus().getReason() + ")");
        } else if (p.getSpec().getNodeName() != null) {
          Map<String, String> a = p.getMetadata().getAnnotations();
          if ("Running".equals(phase)
              && a != null
              && "success".equals(a.get(Annotations.BIND_PHASE))) {
            bound++;
          } else {
            pending++; // bound, not yet allocated and running
          }
        } else {
          Optional<PodCondition> c =
              p.getStatus() == null
                  ? Optional.empty()
                  : p.getStatus().getConditions().stream()
                      .filter(x -> "PodScheduled".equals(x.getType()))
                      .findFirst();
          if (c.isPresent()
              && "False".equals(c.get().getStatus())
              && c.get().getReason() != null
              && !c.get().getReason().isEmpty()) {
            unschedulable++;
          } else {
            pending++;
          }
        }
      }
      return new Census(bound, unschedulable, pending, unexplained);
    }
  }

  /** A JVM of ours in its own process, read through JMX and {@code /proc}. */
  private static final class Probe implements AutoCloseable {
    final String name;
    private final long pid;
    private final JMXConnector jmx;
    private final MemoryMXBean memory;
    private final ThreadMXBean threads;

    private Probe(String name, long pid, JMXConnector jmx) throws IOException {
      this.name = name;
      this.pid = pid;
      this.jmx = jmx;
      var c = jmx.getMBeanServerConnection();
      this.memory =
          ManagementFactory.newPlatformMXBeanProxy(
              c, ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
      this.threads =
          ManagementFactory.newPlatformMXBeanProxy(
              c, ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
    }

    /** Connects to the JMX agent of {@code pid} on {@code port}, retrying while it starts. */
    static Probe connect(String name, long pid, int port) throws Exception {
      JMXServiceURL url =
          new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
      JMXConnector c =
          await()
              .atMost(PATIENCE)
              .pollInterval(Duration.ofMillis(500))
              .ignoreExceptions()
              .until(() -> JMXConnectorFactory.connect(url), x -> x != null);
      return new Probe(name, pid, c);
    }

    int threads() {
      return threads.getThreadCount();
    }

    /** Heap in use right after a full collection. */
    double heapAfterGcMiB() {
      memory.gc();
      return memory.getHeapMemoryUsage().getUsed() / MIB;
    }

    int fds() {
      File[] open = new File("/proc/" + pid + "/fd").listFiles();
      return open == null ? -1 : open.length;
    }

    @Override
    public void close() throws IOException {
      jmx.close();
    }
  }
}
