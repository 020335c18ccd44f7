package io.hami.sim;

import com.sun.management.OperatingSystemMXBean;
import io.hami.plugins.placement.PaperPolicy;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Verifies on a whole bundled trace that the fast replay places every pod exactly as the real
 * scheduler does ({@link EngineCheck}), for each of the paper's policies and HAMi's binpack and
 * spread, and the given seeds. Prints one line per (policy, seed) and exits 1 when any differs.
 * {@code hami simulate --check-engines} does the same for any trace.
 *
 * <p>Run: {@code java -cp <classpath> io.hami.sim.EngineEquivalenceCheck [trace] [seeds] [threads]}
 * with seeds as {@code 42..51} or {@code 42,43}.
 */
public final class EngineEquivalenceCheck {

  public static void main(String[] args) throws Exception {
    String name = args.length > 0 ? args[0] : "default";
    List<Long> seeds = parseSeeds(args.length > 1 ? args[1] : "42");
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    PreparedTrace trace = PreparedTrace.of(BundledTraces.trace(name));
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    record Job(String policy, long seed, Future<Optional<String>> diff) {}
    List<Job> jobs = new ArrayList<>();
    try {
      for (long seed : seeds) {
        List<String> names = new ArrayList<>();
        for (PaperPolicy p : PaperPolicy.values()) {
          names.add(p.policyName());
        }
        for (HamiPolicy p : HamiPolicy.values()) {
          names.add(p.policyName());
        }
        for (String p : names) {
          jobs.add(
              new Job(p, seed, pool.submit(() -> EngineCheck.firstDifference(trace, p, seed))));
        }
      }
      int bad = 0;
      for (Job j : jobs) {
        Optional<String> diff = j.diff.get();
        System.out.printf(
            Locale.ROOT,
            "%s %-12s seed %d: %s%n",
            name,
            j.policy,
            j.seed,
            diff.orElse("identical"));
        if (diff.isPresent()) {
          bad++;
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%d of %d replays identical; wall %.1f s, CPU %.1f s%n",
          jobs.size() - bad,
          jobs.size(),
          (System.nanoTime() - t0) / 1e9,
          (os.getProcessCpuTime() - cpu0) / 1e9);
      if (bad > 0) {
        System.exit(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<Long> parseSeeds(String s) {
    List<Long> out = new ArrayList<>();
    int dots = s.indexOf("..");
    if (dots >= 0) {
      for (long v = Long.parseLong(s.substring(0, dots));
          v <= Long.parseLong(s.substring(dots + 2));
          v++) {
        out.add(v);
      }
    } else {
      for (String p : s.split(",")) {
        out.add(Long.parseLong(p.trim()));
      }
    }
    return out;
  }
}
