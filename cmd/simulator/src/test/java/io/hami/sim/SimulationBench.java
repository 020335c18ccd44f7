package io.hami.sim;

import com.sun.management.OperatingSystemMXBean;
import io.hami.plugins.placement.PaperPolicy;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.LongStream;

/**
 * Benchmark of the 6-policy × 10-seed grid on one bundled trace (fgd.md §6; target: at most 2
 * minutes on 2 cores). Prints wall time and process CPU time, whose half estimates the wall time on
 * two idle cores when the machine is shared.
 *
 * <p>Run: {@code java -cp <classpath> io.hami.sim.SimulationBench [trace] [threads]
 * [fast|framework] [seeds]}.
 */
public final class SimulationBench {

  public static void main(String[] args) throws Exception {
    String name = args.length > 0 ? args[0] : "default";
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    boolean framework = args.length > 2 && args[2].equals("framework");
    int seedCount = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    PreparedTrace trace = PreparedTrace.of(BundledTraces.trace(name));
    List<Long> seeds = LongStream.range(42, 42 + seedCount).boxed().toList();
    List<SimPolicy> policies =
        Arrays.stream(PaperPolicy.values())
            .map(
                p ->
                    framework
                        ? SimPolicy.framework(FrameworkPolicy.byName(p.policyName()).orElseThrow())
                        : SimPolicy.fast(p))
            .toList();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    SimulationReport r;
    try {
      r =
          new Simulation(List.of(trace), policies, seeds)
              .run(pool, Simulation.Progress.none(), System::nanoTime);
    } finally {
      pool.shutdownNow();
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "grid %s (%s): 6 policies x %d seeds = %d replays on %d threads: wall %.1f s, CPU %.1f s"
            + " (CPU/2 = %.1f s; target <= 120 s on 2 cores), CPU per replay %.2f s%n",
        name,
        framework ? "framework" : "fast",
        seeds.size(),
        TextReport.replays(r),
        threads,
        wall,
        cpu,
        cpu / 2,
        cpu / TextReport.replays(r));
    for (PolicySummary p : r.traces().get(0).policies()) {
      System.out.printf(
          Locale.ROOT,
          "  %-10s unallocated at 100%%: %.2f ±%.2f (paper %s)%n",
          p.displayName(),
          p.mean(Curves.Metric.UNALLOCATED_GPU, 100),
          p.sd(Curves.Metric.UNALLOCATED_GPU, 100),
          p.paper()
              .map(v -> String.format(Locale.ROOT, "%.2f ±%.2f", v.mean(), v.sd()))
              .orElse("-"));
    }
  }
}
