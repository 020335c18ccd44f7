package io.hami.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;

/**
 * Runs every (trace, policy, seed) replay of a grid on an executor and gathers the curves. The
 * result does not depend on the executor's parallelism or on completion order.
 */
public final class Simulation {

  /** Told after each replay finishes; called from the thread that runs {@link #run}. */
  @FunctionalInterface
  public interface Progress {
    void replayDone(int done, int total);

    /** A listener that ignores progress. */
    static Progress none() {
      return (d, t) -> {};
    }
  }

  private final List<PreparedTrace> traces;
  private final List<SimPolicy> policies;
  private final long[] seeds;

  /**
   * @param traces traces to replay
   * @param policies policies to compare, in report order
   * @param seeds seeds, each one replay per trace and policy
   */
  public Simulation(
      List<PreparedTrace> traces, List<? extends SimPolicy> policies, List<Long> seeds) {
    this.traces = List.copyOf(traces);
    this.policies = List.copyOf(policies);
    this.seeds = seeds.stream().mapToLong(Long::longValue).toArray();
    if (this.traces.isEmpty() || this.policies.isEmpty() || this.seeds.length == 0) {
      throw new IllegalArgumentException("a simulation needs at least one trace, policy and seed");
    }
  }

  /** Number of replays in the grid. */
  public int replays() {
    return traces.size() * policies.size() * seeds.length;
  }

  private record Job(int trace, int policy, int seed) {}

  private record Outcome(Job job, Map<Curves.Metric, double[]> curves, int failed, int pods) {}

  /**
   * Runs the grid.
   *
   * @param executor runs the replays; parallelism is the executor's
   * @param nanoTime clock for the reported wall time
   */
  public SimulationReport run(Executor executor, Progress progress, LongSupplier nanoTime)
      throws InterruptedException {
    Objects.requireNonNull(progress, "progress");
    long start = nanoTime.getAsLong();
    CompletionService<Outcome> done = new ExecutorCompletionService<>(executor);
    List<Future<Outcome>> futures = new ArrayList<>();
    for (int t = 0; t < traces.size(); t++) {
      for (int s = 0; s < seeds.length; s++) {
        for (int p = 0; p < policies.size(); p++) {
          Job job = new Job(t, p, s);
          futures.add(done.submit(() -> replay(job)));
        }
      }
    }
    int total = futures.size();
    Outcome[][][] outcomes = new Outcome[traces.size()][policies.size()][seeds.length];
    try {
      for (int i = 1; i <= total; i++) {
        Outcome o = done.take().get();
        outcomes[o.job.trace][o.job.policy][o.job.seed] = o;
        progress.replayDone(i, total);
      }
    } catch (ExecutionException e) {
      futures.forEach(f -> f.cancel(true));
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException("replay failed", cause);
    } catch (InterruptedException e) {
      futures.forEach(f -> f.cancel(true));
      throw e;
    }
    List<TraceSummary> summaries = new ArrayList<>();
    for (int t = 0; t < traces.size(); t++) {
      PreparedTrace trace = traces.get(t);
      List<PolicySummary> rows = new ArrayList<>();
      for (int p = 0; p < policies.size(); p++) {
        Map<Curves.Metric, double[][]> curves = new EnumMap<>(Curves.Metric.class);
        int[] failed = new int[seeds.length];
        int[] pods = new int[seeds.length];
        for (Curves.Metric m : Curves.Metric.values()) {
          double[][] perSeed = new double[seeds.length][];
          for (int s = 0; s < seeds.length; s++) {
            perSeed[s] = outcomes[t][p][s].curves.get(m);
          }
          curves.put(m, perSeed);
        }
        for (int s = 0; s < seeds.length; s++) {
          failed[s] = outcomes[t][p][s].failed;
          pods[s] = outcomes[t][p][s].pods;
        }
        SimPolicy policy = policies.get(p);
        rows.add(
            new PolicySummary(
                trace.name(),
                policy.policyName(),
                policy.displayName(),
                seeds,
                curves,
                failed,
                pods));
      }
      summaries.add(
          new TraceSummary(
              trace.name(),
              trace.nodes().size(),
              (int) (trace.capacity() / 1000),
              trace.pods().size(),
              trace.emptyFragmentationRate(),
              trace.workload().size(),
              rows));
    }
    double seconds = (nanoTime.getAsLong() - start) / 1e9;
    return new SimulationReport(summaries, Arrays.stream(seeds).boxed().toList(), seconds);
  }

  private Outcome replay(Job job) {
    RunResult r = policies.get(job.policy).run(traces.get(job.trace), seeds[job.seed]);
    Map<Curves.Metric, double[]> curves = new EnumMap<>(Curves.Metric.class);
    for (Curves.Metric m : Curves.Metric.values()) {
      curves.put(m, Curves.curve(r, m));
    }
    return new Outcome(job, curves, r.failed(), r.pods());
  }
}
