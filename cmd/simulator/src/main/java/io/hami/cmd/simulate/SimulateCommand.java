package io.hami.cmd.simulate;

import com.google.common.base.Splitter;
import io.hami.plugins.placement.PaperPolicy;
import io.hami.sim.BundledTraces;
import io.hami.sim.EngineCheck;
import io.hami.sim.FrameworkPolicy;
import io.hami.sim.HamiPolicy;
import io.hami.sim.HtmlReport;
import io.hami.sim.JsonReport;
import io.hami.sim.KubeObjects;
import io.hami.sim.PreparedTrace;
import io.hami.sim.SimPolicy;
import io.hami.sim.Simulation;
import io.hami.sim.SimulationReport;
import io.hami.sim.TextReport;
import io.hami.sim.Trace;
import io.hami.sim.TraceFiles;
import io.hami.sim.TraceFormatException;
import io.hami.sim.TraceNode;
import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hami simulate}: replays cluster traces under placement policies and seeds and prints how
 * much GPU capacity each policy leaves unallocated and fragmented. With no arguments it compares
 * the paper's six policies and HAMi's binpack and spread on the bundled default openb trace.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Replay a cluster trace under placement policies and compare how much GPU capacity each"
          + " leaves unallocated and fragmented.",
      "With no arguments: the bundled openb default trace (Alibaba cluster-trace-gpu-v2023), all"
          + " six policies of the FGD paper and HAMi's binpack and spread, seeds 42..51."
    })
public final class SimulateCommand implements Callable<Integer> {

  /** Exit code for a trace file that cannot be read. */
  public static final int EXIT_BAD_INPUT = 2;

  @SuppressWarnings("NullAway.Init") // picocli injects it before call().
  @Spec
  CommandSpec spec;

  @Option(
      names = "--nodes",
      paramLabel = "FILE",
      description =
          "Nodes: openb node CSV, or Kubernetes YAML/JSON Node objects with the HAMi"
              + " register annotation. Default: the bundled openb GPU node list.")
  @Nullable Path nodes;

  @Option(
      names = "--pods",
      paramLabel = "FILE",
      description =
          "Pods: openb pod CSV, or Kubernetes YAML/JSON Pod objects with HAMi resources."
              + " Repeat to compare traces.")
  List<Path> pods = new ArrayList<>();

  @Option(
      names = "--trace",
      paramLabel = "NAME",
      split = ",",
      description =
          "Bundled pod traces: default, cpu050, gpushare40, gpuspec10, multigpu50, or all."
              + " Default: default (when --pods is not given).")
  List<String> traces = new ArrayList<>();

  @Option(
      names = "--policy",
      paramLabel = "P",
      split = ",",
      description =
          "Policies to compare, in table order: random, dotprod, clustering, packing,"
              + " bestfit, fgd (the FGD paper's six), hami-binpack, hami-spread (HAMi's node and"
              + " GPU policies). Default: all eight.")
  List<String> policies = new ArrayList<>();

  /** How replays run. */
  public enum Engine {
    /** The policies' own code on a compact cluster table; places exactly as the scheduler does. */
    fast,
    /** The real scheduler (queue, filters, score plugins, vgpu Reserve, binding) in memory. */
    framework
  }

  @Option(
      names = "--engine",
      paramLabel = "E",
      defaultValue = "fast",
      description =
          "fast (default): the policies' code on a compact cluster table, which places"
              + " every pod exactly as the scheduler does (verified on whole traces, see"
              + " --check-engines); framework: the real scheduler in memory (about 20 times"
              + " slower).")
  Engine engine = Engine.fast;

  @Option(
      names = "--check-engines",
      description =
          "Instead of a report, replay each trace, policy and seed with both engines and"
              + " check that the fast engine places every pod on the same node and GPUs as the"
              + " scheduler (slow: runs the scheduler). Exit code 1 on a difference.")
  boolean checkEngines;

  @Option(
      names = "--seeds",
      paramLabel = "SEEDS",
      defaultValue = "42..51",
      description = "Seeds as a range A..B or a list A,B,C. Default: ${DEFAULT-VALUE}.")
  String seeds = "42..51";

  @Option(
      names = "--priorities",
      paramLabel = "SHARE",
      description =
          "Instead of the policy comparison: give this share of the pods (0..1, drawn per seed)"
              + " priority 1000 and the rest 0, replay through the real scheduler with and without"
              + " preemption, and report how many high-priority pods each run places and how many"
              + " low-priority pods preemption evicts.")
  @Nullable Double priorities;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
  @Nullable Path json;

  @Option(
      names = "--html",
      paramLabel = "FILE",
      description = "Also write a self-contained HTML report with charts.")
  @Nullable Path html;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "Replays run in parallel. Default: the number of processors.")
  int threads = Runtime.getRuntime().availableProcessors();

  @Option(
      names = "--progress",
      negatable = true,
      description = "Show a progress bar on stderr. Default: only on a terminal.")
  @Nullable Boolean progress;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<SimPolicy> chosen;
    List<String> checked = List.of();
    List<Long> seedList;
    try {
      chosen = parsePolicies(policies, engine);
      if (checkEngines) {
        checked = policyNames(policies);
      }
      seedList = parseSeeds(seeds);
      if (threads < 1) {
        throw new IllegalArgumentException("--threads must be >= 1, was " + threads);
      }
      if (priorities != null && !(priorities >= 0 && priorities <= 1)) {
        throw new IllegalArgumentException("--priorities must be within 0..1, was " + priorities);
      }
      if (!pods.isEmpty() && !traces.isEmpty()) {
        throw new IllegalArgumentException("give either --pods or --trace, not both");
      }
      checkWritable("--json", json);
      checkWritable("--html", html);
    } catch (IllegalArgumentException e) {
      err.println("hami simulate: " + e.getMessage());
      return 2;
    }
    List<PreparedTrace> prepared = new ArrayList<>();
    try {
      List<TraceNode> nodeList =
          nodes == null ? BundledTraces.nodes() : TraceFiles.readNodes(nodes);
      if (pods.isEmpty()) {
        for (String name : traceNames(traces)) {
          prepared.add(PreparedTrace.of(new Trace(name, nodeList, BundledTraces.pods(name))));
        }
      } else {
        KubeObjects.DeviceUnits units =
            nodes == null ? KubeObjects.DeviceUnits.DEFAULT : TraceFiles.units(nodes);
        for (Path p : pods) {
          prepared.add(
              PreparedTrace.of(
                  new Trace(TraceFiles.traceName(p), nodeList, TraceFiles.readPods(p, units))));
        }
      }
    } catch (TraceFormatException | IllegalArgumentException e) {
      err.println("hami simulate: " + e.getMessage());
      return EXIT_BAD_INPUT;
    } catch (IOException e) {
      err.println("hami simulate: cannot read trace: " + e);
      return EXIT_BAD_INPUT;
    }

    if (engine == Engine.framework || checkEngines) {
      quietSchedulerLogs();
    }
    if (checkEngines) {
      return checkEngines(prepared, checked, seedList, out, err);
    }
    if (priorities != null) {
      quietSchedulerLogs();
      return PriorityStudy.run(prepared, priorities, seedList, threads, out);
    }
    Simulation sim = new Simulation(prepared, chosen, seedList);
    boolean bar = progress != null ? progress : onTerminal();
    ProgressBar progressBar = new ProgressBar(err, bar, System::nanoTime);
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(threads, sim.replays()),
            r -> {
              Thread t = new Thread(r, "simulate");
              t.setDaemon(true);
              return t;
            });
    SimulationReport report;
    try {
      progressBar.start(sim.replays());
      report = sim.run(pool, progressBar::update, System::nanoTime);
      progressBar.finish();
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    TextReport.write(report, out);
    try {
      if (json != null) {
        try (Writer w = Files.newBufferedWriter(json, StandardCharsets.UTF_8)) {
          JsonReport.write(report, w);
        }
        out.println("Wrote " + json);
      }
      if (html != null) {
        try (Writer w = Files.newBufferedWriter(html, StandardCharsets.UTF_8)) {
          HtmlReport.write(report, w);
        }
        out.println("Wrote " + html);
      }
    } catch (IOException e) {
      err.println("hami simulate: cannot write report: " + e);
      return 1;
    }
    out.flush();
    return 0;
  }

  // The scheduler logs every decision at DEBUG; thousands of pods per replay would drown the table.
  /**
   * Whether the process runs on a terminal. From JDK 22 System.console() is there even when output
   * is redirected, and Console.isTerminal() (not in JDK 17) tells the two apart.
   */
  // The check asks for isTerminal(), which is called here, reflectively, as JDK 17 lacks it.
  @SuppressWarnings("SystemConsoleNull")
  private static boolean onTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (NoSuchMethodException e) {
      return true; // before JDK 22 there is a console only on a terminal
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }

  private static void quietSchedulerLogs() {
    if (System.getenv("HAMI_LOG_LEVEL") != null) {
      return; // the user chose
    }
    // The shipped logging configuration names the project's loggers apart from the root.
    for (String name : new String[] {Logger.ROOT_LOGGER_NAME, "io.hami"}) {
      if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger l
          && (l.getLevel() == null
              || !l.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))) {
        l.setLevel(ch.qos.logback.classic.Level.WARN);
      }
    }
  }

  private int checkEngines(
      List<PreparedTrace> prepared,
      List<String> names,
      List<Long> seedList,
      PrintWriter out,
      PrintWriter err)
      throws InterruptedException {
    record Check(String trace, String policy, long seed, Future<Optional<String>> diff) {}
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "simulate-check");
              t.setDaemon(true);
              return t;
            });
    List<Check> checks = new ArrayList<>();
    int differ = 0;
    try {
      for (PreparedTrace t : prepared) {
        for (long seed : seedList) {
          for (String p : names) {
            checks.add(
                new Check(
                    t.name(), p, seed, pool.submit(() -> EngineCheck.firstDifference(t, p, seed))));
          }
        }
      }
      for (Check c : checks) {
        Optional<String> diff;
        try {
          diff = c.diff.get();
        } catch (ExecutionException e) {
          err.println("hami simulate: replay failed: " + e.getCause());
          return 1;
        }
        out.printf(
            Locale.ROOT,
            "%-12s %-12s seed %d: %s%n",
            c.trace,
            c.policy,
            c.seed,
            diff.map(d -> "DIFFERENT: " + d).orElse("identical"));
        out.flush();
        if (diff.isPresent()) {
          differ++;
        }
      }
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    out.printf(
        Locale.ROOT,
        "%d of %d replays placed identically by both engines.%n",
        checks.size() - differ,
        checks.size());
    out.flush();
    return differ == 0 ? 0 : 1;
  }

  /** The policy names asked for, or all eight; each known to the fast engine. */
  static List<String> policyNames(List<String> names) {
    return parsePolicies(names, Engine.fast).stream().map(SimPolicy::policyName).toList();
  }

  /** Refuses, before the run, a report file whose directory is missing or not writable. */
  static void checkWritable(String flag, @Nullable Path file) {
    if (file == null) {
      return;
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IllegalArgumentException(
          flag + " " + file + ": the directory " + dir + " does not exist; create it first");
    }
    if (!Files.isWritable(dir) || Files.isDirectory(file)) {
      throw new IllegalArgumentException(flag + " " + file + ": cannot write a file there");
    }
  }

  static List<SimPolicy> parsePolicies(List<String> names, Engine engine) {
    List<String> wanted =
        names.stream().map(String::trim).filter(n -> !n.isEmpty()).distinct().toList();
    if (wanted.isEmpty()) {
      wanted = Arrays.stream(FrameworkPolicy.values()).map(FrameworkPolicy::policyName).toList();
    }
    List<SimPolicy> out = new ArrayList<>();
    for (String n : wanted) {
      if (engine == Engine.fast) {
        Optional<PaperPolicy> paper = PaperPolicy.byName(n);
        if (paper.isPresent()) {
          out.add(SimPolicy.fast(paper.get()));
          continue;
        }
        HamiPolicy p =
            HamiPolicy.byName(n)
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "--policy: unknown policy '"
                                + n
                                + "'; known: "
                                + String.join(
                                    ", ",
                                    Arrays.stream(FrameworkPolicy.values())
                                        .map(FrameworkPolicy::policyName)
                                        .toList())));
        out.add(SimPolicy.fast(p));
      } else {
        FrameworkPolicy p =
            FrameworkPolicy.byName(n)
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "--policy: unknown policy '"
                                + n
                                + "'; known: "
                                + String.join(
                                    ", ",
                                    Arrays.stream(FrameworkPolicy.values())
                                        .map(FrameworkPolicy::policyName)
                                        .toList())));
        out.add(SimPolicy.framework(p));
      }
    }
    return List.copyOf(out);
  }

  static List<Long> parseSeeds(String value) {
    String v = value.trim();
    List<Long> out = new ArrayList<>();
    try {
      int dots = v.indexOf("..");
      if (dots >= 0) {
        long a = Long.parseLong(v.substring(0, dots).trim());
        long b = Long.parseLong(v.substring(dots + 2).trim());
        if (b < a || b - a >= 10_000) {
          throw new IllegalArgumentException(
              "--seeds: range '" + value + "' must be A..B with A <= B and at most 10000 seeds");
        }
        for (long s = a; s <= b; s++) {
          out.add(s);
        }
      } else {
        for (String part : Splitter.on(',').split(v)) {
          if (!part.isBlank()) {
            out.add(Long.parseLong(part.trim()));
          }
        }
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--seeds: '" + value + "' is not a range A..B or a list A,B,C of integers");
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("--seeds: no seed given");
    }
    return List.copyOf(new LinkedHashSet<>(out));
  }

  static List<String> traceNames(List<String> names) {
    if (names.isEmpty()) {
      return List.of("default");
    }
    LinkedHashSet<String> out = new LinkedHashSet<>();
    for (String n : names) {
      String key = n.trim().toLowerCase(Locale.ROOT);
      if (key.equals("all")) {
        out.addAll(BundledTraces.POD_TRACES);
      } else if (BundledTraces.POD_TRACES.contains(key)) {
        out.add(key);
      } else if (!key.isEmpty()) {
        throw new IllegalArgumentException(
            "--trace: no bundled trace '"
                + n
                + "'; bundled: "
                + String.join(", ", BundledTraces.POD_TRACES)
                + ", all");
      }
    }
    return List.copyOf(out);
  }
}
