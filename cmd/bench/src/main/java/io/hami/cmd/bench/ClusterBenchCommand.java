package io.hami.cmd.bench;

import io.hami.kube.cli.ClusterOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
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

  @SuppressWarnings("NullAway.Init") // picocli sets it before call().
  @Option(
      names = "--baseline",
      defaultValue = "ceiling",
      description =
          "ceiling: also bind the same pods with the API ceiling; none: only the scheduler (default: ${DEFAULT-VALUE}).")
  String baseline;

  @Option(
      names = "--nodes",
      description = "Override the workload's node count (for scaled-down runs).")
  @Nullable Integer nodes;

  @Option(
      names = "--pods",
      description = "Override the workload's pod count (for scaled-down runs).")
  @Nullable Integer pods;

  @Option(
      names = "--qps",
      description = "Override the workload's pod creation rate (pods per second).")
  @Nullable Double qps;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    boolean ceiling;
    switch (baseline) {
      case "ceiling" -> ceiling = true;
      case "none" -> ceiling = false;
      default -> {
        err.println("--baseline: invalid value \"" + baseline + "\": must be one of ceiling, none");
        err.flush();
        return 2;
      }
    }
    if ((nodes != null && nodes < 1) || (pods != null && pods < 1)) {
      err.println("--nodes and --pods: must be at least 1");
      err.flush();
      return 2;
    }
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
        "hami bench cluster: workload=%s nodes=%d pods=%d baseline=%s%n",
        w.name(), w.nodes().count(), w.pods().count(), baseline);
    out.flush();
    BenchReport report =
        ClusterBench.run(
            new ClusterBench.Options(w, cluster.kubeconfig(), root.get(), jar, ceiling, out));
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
