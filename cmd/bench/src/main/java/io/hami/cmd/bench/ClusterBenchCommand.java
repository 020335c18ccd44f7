package io.hami.cmd.bench;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableSet;
import io.hami.kube.cli.ClusterOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hami bench cluster}: runs a workload against a real API server and prints a table of
 * throughput, latency, requests per pod, CPU and heap, for the scheduler under test and its
 * baselines. Exit codes: 0 when every measured pod bound and every check passed, 1 otherwise, 2 for
 * a bad flag or workload.
 */
@Command(
    name = "cluster",
    resourceBundle = "io.hami.cmd.bench.ClusterBenchCommand",
    mixinStandardHelpOptions = true,
    description =
        "Measures the scheduler against a real API server with a workload from config/bench/.")
public final class ClusterBenchCommand implements Callable<Integer> {
  /** Environment variable the {@code hami} launcher sets to the repository root. */
  static final String HOME_ENV = "HAMI_HOME";

  private static final Pattern PLUGIN_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");

  @SuppressWarnings("NullAway.Init") // picocli injects it before call().
  @Spec
  CommandSpec spec;

  @SuppressWarnings("NullAway.Init") // picocli sets it before call().
  @Option(
      names = "--workload",
      required = true,
      description = "Workload YAML, e.g. config/bench/basic.yaml.")
  Path workload;

  /** Its description (in the resource bundle) names this command's own default. */
  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(names = "--json", description = "Write the results as JSON to this file.")
  @Nullable Path json;

  @Option(names = "--markdown", description = "Write the results as a markdown table to this file.")
  @Nullable Path markdown;

  @Option(
      names = "--baseline",
      description =
          "Comma-separated: non-gpu (also schedule the same pods without GPU requests with ours;"
              + " GPU workloads), kube-scheduler (also schedule them with kube-scheduler, without"
              + " GPU requests for a GPU workload), ceiling (also bind the GPU pods with the API"
              + " ceiling; GPU workloads), or none. Default: non-gpu and ceiling for GPU workloads,"
              + " with kube-scheduler too when --kube-scheduler or $"
              + KubeSchedulerProcess.ENV
              + " names it; kube-scheduler for pods.template.")
  @Nullable String baseline;

  @Option(
      names = "--kube-scheduler",
      description =
          "The kube-scheduler binary of the kube-scheduler baseline (default: $"
              + KubeSchedulerProcess.ENV
              + ", which test-e2e/bin/build-control-plane.sh prints).")
  @Nullable Path kubeScheduler;

  @Option(
      names = "--init-pods",
      description = "Override the init pods of a pods.template workload (for scaled runs).")
  @Nullable Integer initPods;

  @Option(
      names = "--nodes",
      description = "Override the workload's node count (for scaled-down runs).")
  @Nullable Integer nodes;

  @Option(
      names = "--pods",
      description = "Override the workload's pod count (for scaled-down runs).")
  @Nullable Integer pods;

  @Option(
      names = "--lock-mode",
      description =
          "nodelock mode of the scheduler under test on GPU workloads: node (HAMi's node lock, the"
              + " default) or scheduler (no lock write; light nodes serve pods without the lock"
              + " and say so).")
  String lockMode = "node";

  @Option(
      names = "--primary-score",
      paramLabel = "PLUGINS",
      description =
          "Comma-separated primaryScore of the scheduler under test instead of the shipped one"
              + " (vgpu), first deciding: nodelock,vgpu sends a GPU pod to a node with no pod in"
              + " flight before the GPU node policy decides (README, lock mode).")
  @Nullable String primaryScore;

  @Option(
      names = "--max-busy-nodes",
      paramLabel = "N",
      description =
          "nodelock maxBusyNodes of the scheduler under test instead of the shipped one (0, no"
              + " limit): with --primary-score nodelock,vgpu a burst spreads over at most N nodes"
              + " with pods in flight, and the GPU node policy decides beyond.")
  @Nullable Integer maxBusyNodes;

  @Option(
      names = "--backlog",
      description =
          "Create each phase's measured pods while its scheduler is paused (SIGSTOP), then time"
              + " it draining them from its resume, as scheduler_perf times a scheduler whose pods"
              + " are waiting: pods/s and create→bind count from the resume. Not for workloads"
              + " with churn or unschedulable pods, which need pods arriving.")
  boolean backlog;

  @Option(
      names = "--kube-scheduler-first",
      description =
          "Run the kube-scheduler phase before ours (pods.template workloads), so that ours is"
              + " measured second, on the API server and etcd the other phase has already used.")
  boolean kubeSchedulerFirst;

  @Option(
      names = "--qps",
      description = "Override the workload's pod creation rate (pods per second).")
  @Nullable Double qps;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (baseline != null) {
      try {
        var unused = baselineParts(baseline);
      } catch (IllegalArgumentException e) {
        return usage(err, e.getMessage());
      }
    }
    if ((nodes != null && nodes < 1) || (pods != null && pods < 1)) {
      err.println("--nodes and --pods: must be at least 1");
      err.flush();
      return 2;
    }
    if (!lockMode.equals("node") && !lockMode.equals("scheduler")) {
      return usage(err, "--lock-mode: invalid value '" + lockMode + "': must be node or scheduler");
    }
    List<String> primary = null;
    if (primaryScore != null) {
      primary = List.of(primaryScore.split(",", -1));
      if (!primary.stream().allMatch(p -> PLUGIN_NAME.matcher(p).matches())
          || primary.stream().distinct().count() < primary.size()) {
        return usage(
            err,
            "--primary-score: invalid value '"
                + primaryScore
                + "': must be distinct plugin names separated by commas");
      }
    }
    if (maxBusyNodes != null && (maxBusyNodes < 0 || maxBusyNodes > 100_000)) {
      return usage(
          err,
          "--max-busy-nodes: invalid value "
              + maxBusyNodes
              + ": must be in 0..100000 (0: no limit)");
    }
    SchedulerProcess.Settings settings =
        new SchedulerProcess.Settings(lockMode, primary, maxBusyNodes);
    if (qps != null && !(qps >= 0.1 && qps <= 100_000)) {
      err.println("--qps: invalid value " + qps + ": must be in 0.1..100000");
      err.flush();
      return 2;
    }
    String clusterProblem = cluster.problem();
    if (clusterProblem != null) {
      err.println(clusterProblem);
      err.flush();
      return 2;
    }
    Workload w;
    try {
      w = Workload.load(workload);
    } catch (Workload.WorkloadException e) {
      err.println("--workload " + workload + ":");
      e.errors().forEach(x -> err.println("  " + x));
      err.flush();
      return 2;
    }
    if (nodes != null || pods != null) {
      w =
          w.scaled(
              nodes == null ? w.nodes().count() : nodes, pods == null ? w.pods().count() : pods);
    }
    if (qps != null) {
      w = w.withQps(qps);
    }
    if (initPods != null) {
      if (w.pods().template() == null || initPods < 0) {
        return usage(
            err,
            "--init-pods: invalid value "
                + initPods
                + ": "
                + (initPods < 0 ? "must be at least 0" : "only with a pods.template workload"));
      }
      w = w.withInit(initPods);
    }
    if (backlog && (w.churn() != null || w.unschedulable() != null)) {
      return usage(
          err,
          "--backlog: workload "
              + w.name()
              + " has "
              + (w.churn() != null ? "churn" : "unschedulable pods")
              + ", which needs pods arriving while the scheduler runs; run it without --backlog");
    }
    String capacity = w.capacityProblem();
    if (capacity != null) {
      return usage(err, "--workload " + workload + ": " + capacity);
    }
    boolean templated = w.pods().template() != null;
    ClusterBench.Baselines baselines;
    try {
      baselines =
          baselines(
              baseline,
              templated,
              kubeScheduler != null
                  ? kubeScheduler.toString()
                  : System.getenv(KubeSchedulerProcess.ENV));
    } catch (IllegalArgumentException e) {
      return usage(err, e.getMessage());
    }
    if (kubeSchedulerFirst && (!templated || baselines.kubeScheduler() == null)) {
      return usage(
          err,
          "--kube-scheduler-first: "
              + (!templated
                  ? "only with a pods.template workload, and " + w.name() + " has none"
                  : "no kube-scheduler to run (set --kube-scheduler or "
                      + KubeSchedulerProcess.ENV
                      + ")"));
    }
    Optional<Path> root =
        repoRoot(System.getenv(HOME_ENV), Path.of("").toAbsolutePath(), codeLocation());
    if (root.isEmpty()) {
      err.println(
          "cannot find the repository root (set "
              + HOME_ENV
              + " or run from inside the repository)");
      err.flush();
      return 2;
    }
    Path jar = schedulerJar(root.get());
    if (!Files.isRegularFile(jar)) {
      err.println(
          "scheduler jar "
              + jar
              + " not found; build it with: mvn -B -q -pl cmd/cli -am package -DskipTests");
      err.flush();
      return 2;
    }
    out.printf(
        "hami bench cluster: workload=%s nodes=%d pods=%d baseline=%s %s%n",
        w.name(), w.nodes().count(), w.pods().count(), baselines.describe(), settings.describe());
    out.flush();
    BenchReport report =
        ClusterBench.run(
            new ClusterBench.Options(
                w,
                cluster.kubeconfig(),
                root.get(),
                jar,
                baselines,
                settings,
                backlog,
                kubeSchedulerFirst,
                out));
    String md = report.toMarkdown();
    out.println();
    out.print(md);
    if (json != null) {
      write(json, report.toJson());
    }
    if (markdown != null) {
      write(markdown, md);
    }
    out.flush();
    return report.checks().ok() && report.ours().bound() == report.ours().created() ? 0 : 1;
  }

  private static int usage(PrintWriter err, @Nullable String message) {
    err.println(message);
    err.flush();
    return 2;
  }

  /**
   * The baselines {@code --baseline} asks for.
   *
   * @param flag the flag's value; null for the workload's default
   * @param templated whether the workload is a {@code pods.template} one
   * @param kubeScheduler the kube-scheduler binary ({@code --kube-scheduler}, else {@code
   *     KUBE_SCHEDULER}); null or empty when neither is set
   * @throws IllegalArgumentException naming the flag and value that cannot be run
   */
  static ClusterBench.Baselines baselines(
      @Nullable String flag, boolean templated, @Nullable String kubeScheduler) {
    boolean haveKube = kubeScheduler != null && !kubeScheduler.isBlank();
    String value =
        flag != null
            ? flag
            : templated
                ? "kube-scheduler"
                : haveKube ? "non-gpu,kube-scheduler,ceiling" : "non-gpu,ceiling";
    Set<String> parts = baselineParts(value);
    boolean ceiling = parts.contains("ceiling");
    boolean nonGpu = parts.contains("non-gpu");
    boolean kube = parts.contains("kube-scheduler");
    if (nonGpu && templated) {
      throw new IllegalArgumentException(
          "--baseline: invalid value \""
              + value
              + "\": the pods of a pods.template workload carry no GPUs; non-gpu is for GPU"
              + " workloads");
    }
    if (ceiling && templated) {
      throw new IllegalArgumentException(
          "--baseline: invalid value \""
              + value
              + "\": the API ceiling makes GPU binding writes; pods.template workloads compare"
              + " with kube-scheduler");
    }
    Path binary = null;
    if (kube) {
      if (kubeScheduler == null || kubeScheduler.isBlank()) {
        throw new IllegalArgumentException(
            "--baseline kube-scheduler: no kube-scheduler binary: pass --kube-scheduler PATH or set "
                + KubeSchedulerProcess.ENV
                + " (test-e2e/bin/build-control-plane.sh builds it), or use --baseline none");
      }
      binary = Path.of(kubeScheduler).toAbsolutePath();
      if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
        throw new IllegalArgumentException(
            "--kube-scheduler: invalid value \"" + kubeScheduler + "\": not an executable file");
      }
    }
    return new ClusterBench.Baselines(ceiling, nonGpu, binary);
  }

  private static final ImmutableSet<String> BASELINES =
      ImmutableSet.of("non-gpu", "kube-scheduler", "ceiling", "none");

  /**
   * The values of {@code --baseline}.
   *
   * @throws IllegalArgumentException naming the flag and value when one is unknown
   */
  private static Set<String> baselineParts(String value) {
    Set<String> parts = new LinkedHashSet<>();
    for (String part : Splitter.on(',').trimResults().split(value)) {
      if (!BASELINES.contains(part)) {
        throw new IllegalArgumentException(
            "--baseline: invalid value \""
                + value
                + "\": must be one of non-gpu, kube-scheduler, ceiling, none (comma-separated)");
      }
      parts.add(part);
    }
    return parts;
  }

  private static void write(Path file, String text) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(file, text);
  }

  /** The jar this command runs from, else the one the build makes. */
  private static Path schedulerJar(Path root) {
    Path self = codeLocation();
    if (self != null && self.toString().endsWith(".jar")) {
      return self;
    }
    return root.resolve("cmd/cli/target/hami.jar");
  }

  private static @Nullable Path codeLocation() {
    try {
      var src = ClusterBenchCommand.class.getProtectionDomain().getCodeSource();
      return src == null ? null : Path.of(src.getLocation().toURI());
    } catch (URISyntaxException | SecurityException e) {
      return null;
    }
  }

  /**
   * The repository root: {@code HAMI_HOME} when set, else the first directory at or above the
   * working directory, then above this code's location, that holds the scheduler configuration and
   * the control-plane build script.
   */
  static Optional<Path> repoRoot(@Nullable String home, Path cwd, @Nullable Path code) {
    if (home != null && !home.isBlank()) {
      Path h = Path.of(home).toAbsolutePath();
      return isRoot(h) ? Optional.of(h) : Optional.empty();
    }
    for (Path start : new Path[] {cwd, code}) {
      for (Path p = start; p != null; p = p.getParent()) {
        if (isRoot(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  private static boolean isRoot(Path p) {
    return Files.isRegularFile(p.resolve("config/scheduler/scheduler-config.yaml"))
        && Files.isRegularFile(p.resolve("test-e2e/bin/build-control-plane.sh"));
  }
}
