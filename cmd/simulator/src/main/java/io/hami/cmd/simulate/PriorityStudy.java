package io.hami.cmd.simulate;

import io.hami.sim.PreparedTrace;
import io.hami.sim.PriorityReplay;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * {@code hami simulate --priorities SHARE}: each trace and seed replayed with and without
 * preemption ({@link PriorityReplay}), and a table of what each placed, summed over the seeds.
 */
final class PriorityStudy {

  private PriorityStudy() {}

  static int run(
      List<PreparedTrace> traces, double share, List<Long> seeds, int threads, PrintWriter out)
      throws InterruptedException {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.max(1, Math.min(threads, traces.size() * seeds.size() * 2)),
            r -> {
              Thread t = new Thread(r, "simulate-priorities");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<PriorityReplay.Result>> futures = new ArrayList<>();
      for (PreparedTrace trace : traces) {
        PriorityReplay replay = new PriorityReplay(trace, share);
        for (long seed : seeds) {
          for (boolean preemption : new boolean[] {false, true}) {
            futures.add(pool.submit(() -> replay.run(seed, preemption)));
          }
        }
      }
      List<PriorityReplay.Result> results = new ArrayList<>();
      for (Future<PriorityReplay.Result> f : futures) {
        try {
          results.add(f.get());
        } catch (ExecutionException e) {
          throw new IllegalStateException("priority replay failed", e.getCause());
        }
      }
      write(results, share, seeds, out);
      out.flush();
      return 0;
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  static void write(
      List<PriorityReplay.Result> results, double share, List<Long> seeds, PrintWriter out) {
    List<String> names = new ArrayList<>();
    for (PriorityReplay.Result r : results) {
      if (!names.contains(r.trace())) {
        names.add(r.trace());
      }
    }
    for (String name : names) {
      Totals without = new Totals();
      Totals with = new Totals();
      for (PriorityReplay.Result r : results) {
        if (r.trace().equals(name)) {
          (r.preemption() ? with : without).add(r);
        }
      }
      out.printf(
          Locale.ROOT,
          "Trace %s: %.0f%% of pods at priority %d, the rest at 0; %d seed(s) %s; summed over"
              + " seeds%n",
          name,
          share * 100,
          PriorityReplay.HIGH,
          seeds.size(),
          seeds);
      out.printf(Locale.ROOT, "%-34s %20s %20s%n", "", "without preemption", "with preemption");
      row(
          out,
          "high-priority pods placed",
          without.highPlaced,
          with.highPlaced,
          with.highSubmitted);
      row(
          out,
          "high-priority GPUs placed",
          without.highMilliPlaced / 1000,
          with.highMilliPlaced / 1000,
          with.highMilliSubmitted / 1000);
      row(out, "low-priority pods placed", without.lowPlaced, with.lowPlaced, with.lowSubmitted);
      out.printf(
          Locale.ROOT,
          "%-34s %20d %20d%n",
          "low-priority pods evicted",
          without.lowEvicted,
          with.lowEvicted);
      out.printf(
          Locale.ROOT,
          "%-34s %19.1f%% %19.1f%%%n",
          "GPU allocated at the end",
          100.0 * without.allocated / Math.max(1, without.capacity),
          100.0 * with.allocated / Math.max(1, with.capacity));
      out.println();
    }
  }

  private static void row(PrintWriter out, String label, long without, long with, long of) {
    out.printf(
        Locale.ROOT,
        "%-34s %20s %20s%n",
        label,
        without + "/" + of + " (" + pct(without, of) + ")",
        with + "/" + of + " (" + pct(with, of) + ")");
  }

  private static String pct(long n, long of) {
    return of == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * n / of);
  }

  private static final class Totals {
    long highSubmitted;
    long highPlaced;
    long highMilliSubmitted;
    long highMilliPlaced;
    long lowSubmitted;
    long lowPlaced;
    long lowEvicted;
    long allocated;
    long capacity;

    void add(PriorityReplay.Result r) {
      highSubmitted += r.highSubmitted();
      highPlaced += r.highPlaced();
      highMilliSubmitted += r.highGpuMilliSubmitted();
      highMilliPlaced += r.highGpuMilliPlaced();
      lowSubmitted += r.lowSubmitted();
      lowPlaced += r.lowPlaced();
      lowEvicted += r.lowEvicted();
      allocated += r.gpuMilliAllocatedAtEnd();
      capacity += r.gpuMilliCapacity();
    }
  }
}
