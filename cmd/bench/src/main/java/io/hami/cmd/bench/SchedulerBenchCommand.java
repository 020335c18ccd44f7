package io.hami.cmd.bench;

import io.hami.cmd.scheduler.PluginRegistry;
import io.hami.framework.config.ConfigException;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.runtime.Registry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hami bench scheduler}: the scheduler's throughput and decision latency on an in-memory
 * cluster, through the same code path as production from queue pop to bind.
 */
@Command(
    name = "scheduler",
    mixinStandardHelpOptions = true,
    description = "Schedules P pods onto N in-memory GPU nodes and prints throughput and latency.")
public final class SchedulerBenchCommand implements Callable<Integer> {
  static final String GPU = "gpu";
  static final String BUILTIN = "builtin";
  static final Path SHIPPED = Path.of("config", "scheduler", "scheduler-config.yaml");

  @SuppressWarnings("NullAway.Init") // picocli injects it before call().
  @Spec
  CommandSpec spec;

  @Option(
      names = "--nodes",
      defaultValue = "5000",
      description = "Nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--gpus-per-node",
      defaultValue = "8",
      description = "GPUs per node (default: ${DEFAULT-VALUE}).")
  int gpusPerNode;

  @Option(
      names = "--pods",
      defaultValue = "50000",
      description = "Measured pods (default: ${DEFAULT-VALUE}).")
  int pods;

  @Option(
      names = "--warmup-pods",
      defaultValue = "-1",
      description = "Pods scheduled and deleted before measuring; default: min(pods, 10000).")
  int warmupPods;

  @Option(
      names = "--profile",
      description =
          "gpu: the shipped config/scheduler/scheduler-config.yaml, kube-scheduler's plugins and"
              + " the GPU plugins ('default' is the same); builtin: kube-scheduler's plugins only, no"
              + " GPU plugins; or a scheduler configuration YAML. Without the flag: builtin.")
  @Nullable Path profile;

  @SuppressWarnings("NullAway.Init") // picocli sets it before call().
  @Option(
      names = "--pod-shapes",
      defaultValue = "auto",
      description =
          "slice (one 4000 MiB GPU slice per pod), mixed (fractional, whole, multi-GPU and "
              + "multi-container GPU pods) or auto: mixed when the profile enables vgpu (default: ${DEFAULT-VALUE}).")
  String podShapes;

  @SuppressWarnings("NullAway.Init") // picocli sets it before call().
  @Option(
      names = "--workload",
      defaultValue = "gpu",
      description =
          "gpu (the pods of --pod-shapes) or one of kube-scheduler's scheduler_perf workloads on"
              + " plain pods, with their init pods bound first: pod-anti-affinity,"
              + " preferred-pod-affinity, topology-spreading, pvs (default: ${DEFAULT-VALUE}).")
  String workload;

  @Option(
      names = "--init-pods",
      defaultValue = "-1",
      description =
          "Pods of a scheduler_perf workload bound before measuring; -1 for the workload's own"
              + " count at 5,000 nodes (default: ${DEFAULT-VALUE}).")
  int initPods;

  @Option(
      names = "--parallelism",
      defaultValue = "1",
      description = "Filter/Score threads (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Tie-break seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (nodes < 1 || gpusPerNode < 0 || pods < 1 || parallelism < 1) {
      err.println(
          "--nodes, --pods and --parallelism must be at least 1; --gpus-per-node at least 0");
      err.flush();
      return 2;
    }
    Registry registry = PluginRegistry.create();
    SchedulerConfiguration config;
    try {
      ConfigLoader loader = new ConfigLoader(registry);
      Path file = profileFile(profile);
      config = file == null ? loader.defaults() : loader.load(file);
    } catch (ConfigException e) {
      err.println(e.getMessage());
      err.flush();
      return 2;
    }
    SchedulerBench.PodShapes shapes;
    switch (podShapes) {
      case "slice" -> shapes = SchedulerBench.PodShapes.SLICE;
      case "mixed" -> shapes = SchedulerBench.PodShapes.MIXED;
      case "auto" ->
          shapes =
              enablesVgpu(config) ? SchedulerBench.PodShapes.MIXED : SchedulerBench.PodShapes.SLICE;
      default -> {
        err.println(
            "--pod-shapes: invalid value \"" + podShapes + "\": must be one of slice, mixed, auto");
        err.flush();
        return 2;
      }
    }
    PerfWorkload perf;
    try {
      perf = PerfWorkload.fromFlag(workload);
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      err.flush();
      return 2;
    }
    int warmup =
        perf != PerfWorkload.GPU ? 0 : warmupPods >= 0 ? warmupPods : Math.min(pods, 10_000);
    SchedulerBench.Params params =
        new SchedulerBench.Params(
            nodes,
            gpusPerNode,
            pods,
            warmup,
            parallelism,
            seed,
            profileName(profile),
            shapes,
            perf,
            perf == PerfWorkload.GPU ? 0 : initPods >= 0 ? initPods : perf.initPods());
    out.printf(
        "hami bench scheduler: workload=%s init-pods=%d nodes=%d gpus-per-node=%d pods=%d warmup=%d parallelism=%d profile=%s pod-shapes=%s%n",
        perf.flag(),
        params.initPods(),
        nodes,
        gpusPerNode,
        pods,
        warmup,
        parallelism,
        params.profileName(),
        shapes.name().toLowerCase(Locale.ROOT));
    out.flush();
    SchedulerBench.Result r;
    try {
      r = SchedulerBench.run(params, config, registry);
    } catch (ConfigException e) {
      err.println(e.getMessage());
      err.flush();
      return 2;
    }
    out.printf(
        Locale.ROOT,
        "bound %d/%d pods in %.2f s: %.0f pods/s (%d left unschedulable)%n",
        r.bound(),
        pods,
        r.seconds(),
        r.podsPerSecond(),
        r.unschedulable());
    out.printf(
        Locale.ROOT,
        "scheduling thread CPU: %.2f s (%.0f pods per CPU-second)%n",
        r.cpuSeconds(),
        r.bound() / Math.max(1e-9, r.cpuSeconds()));
    out.printf(
        Locale.ROOT,
        "decision latency ms: p50=%.3f p90=%.3f p99=%.3f max=%.3f%n",
        r.p50Ms(),
        r.p90Ms(),
        r.p99Ms(),
        r.maxMs());
    out.printf(
        "heap used after GC with %d bound pods: %d MiB (max %d MiB)%n",
        r.bound(), r.heapUsedMiB(), r.heapMaxMiB());
    out.printf("JVM flags: %s%n", String.join(" ", r.jvmFlags()));
    out.println("RESULT " + r.toJson());
    out.flush();
    return 0;
  }

  /** The file a {@code --profile} value names; null for the built-in configuration. */
  static @Nullable Path profileFile(@Nullable Path profile) {
    if (profile == null || isNamed(profile, BUILTIN)) {
      return null;
    }
    if (isNamed(profile, GPU) || isNamed(profile, "default")) {
      return SHIPPED;
    }
    return profile;
  }

  /** How the run report names a {@code --profile} value. */
  static String profileName(@Nullable Path profile) {
    Path file = profileFile(profile);
    return file == null
        ? BUILTIN + " (no GPU plugins)"
        : file.equals(SHIPPED) ? GPU + " (" + SHIPPED + ")" : file.toString();
  }

  /** A bare word, not an existing file of that name. */
  private static boolean isNamed(Path profile, String word) {
    return profile.toString().equals(word) && !Files.exists(profile);
  }

  /** Whether some profile enables the vgpu plugin. */
  private static boolean enablesVgpu(SchedulerConfiguration config) {
    return config.profiles().stream()
        .anyMatch(
            p ->
                p.multiPoint().enabled().stream().anyMatch(r -> r.name().equals("vgpu"))
                    || p.points().values().stream()
                        .anyMatch(
                            set -> set.enabled().stream().anyMatch(r -> r.name().equals("vgpu"))));
  }
}
