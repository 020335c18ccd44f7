package io.hami.sim;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The results of one policy on one trace over several seeds: per-seed curves of each metric against
 * arrived workload (x = 0..130), and the final failed pod count per seed.
 */
public final class PolicySummary {

  private final String policy;
  private final String displayName;
  private final long[] seeds;
  private final Map<Curves.Metric, double[][]> curves;
  private final int[] failed;
  private final int[] pods;
  private final Optional<PaperNumbers.Value> paper;

  PolicySummary(
      String trace,
      String policy,
      String displayName,
      long[] seeds,
      Map<Curves.Metric, double[][]> curves,
      int[] failed,
      int[] pods) {
    this.policy = policy;
    this.displayName = displayName;
    this.seeds = seeds.clone();
    this.curves = new EnumMap<>(curves);
    this.failed = failed.clone();
    this.pods = pods.clone();
    this.paper = PaperNumbers.unallocatedAt100(trace, policy);
  }

  public String policy() {
    return policy;
  }

  /** The policy's name in the paper, or its own name. */
  public String displayName() {
    return displayName;
  }

  public List<Long> seeds() {
    return Arrays.stream(seeds).boxed().toList();
  }

  private double[][] curves(Curves.Metric m) {
    return Objects.requireNonNull(curves.get(m), () -> "no curves of " + m);
  }

  /** The metric at x for each seed. */
  public double[] perSeed(Curves.Metric m, int x) {
    double[][] c = curves(m);
    double[] v = new double[c.length];
    for (int s = 0; s < c.length; s++) {
      v[s] = c[s][x];
    }
    return v;
  }

  /** The curve of one seed. */
  public double[] curve(Curves.Metric m, int seedIndex) {
    return curves(m)[seedIndex].clone();
  }

  /** Mean over seeds of the metric at x. */
  public double mean(Curves.Metric m, int x) {
    return Stats.of(perSeed(m, x)).mean();
  }

  /** Population standard deviation over seeds of the metric at x. */
  public double sd(Curves.Metric m, int x) {
    return Stats.of(perSeed(m, x)).sd();
  }

  /** Mean curve over seeds, x = 0..130. */
  public double[] meanCurve(Curves.Metric m) {
    double[] out = new double[Curves.MAX_X + 1];
    for (int x = 0; x <= Curves.MAX_X; x++) {
      out[x] = mean(m, x);
    }
    return out;
  }

  /** Failed pods at the end of each seed's run (all pods submitted). */
  public int[] failedAtEnd() {
    return failed.clone();
  }

  /** Pods submitted in each seed's run (after tuning). */
  public int[] podsSubmitted() {
    return pods.clone();
  }

  /** The published unallocated GPU % at 100% arrived, when the paper has it. */
  public Optional<PaperNumbers.Value> paper() {
    return paper;
  }
}
