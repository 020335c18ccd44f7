package io.hami.sim;

import com.google.common.collect.ImmutableMap;
import java.util.Map;
import java.util.Optional;

/**
 * Published unallocated GPU % at 100% arrived workload, mean and SD over seeds 42..51 (Weng et al.,
 * "Beware of Fragmentation", USENIX ATC'23, from the artifact's cached analysis results), for the
 * openb traces and the paper's six policies.
 */
public final class PaperNumbers {

  /** A published mean and standard deviation, in percentage points. */
  public record Value(double mean, double sd) {
    /** The reproduction tolerance: max(0.5 pp, 2 × SD). */
    public double tolerance() {
      return Math.max(0.5, 2 * sd);
    }
  }

  private static final String[] POLICIES = {
    "random", "dotprod", "clustering", "packing", "bestfit", "fgd"
  };

  private static final ImmutableMap<String, double[]> TABLE =
      ImmutableMap.ofEntries(
          row("default", 13.70, .31, 9.38, .18, 8.35, .58, 8.22, .50, 7.14, .14, 4.77, .10),
          row("cpu050", 10.98, .25, 6.97, .18, 6.48, .33, 6.54, .30, 6.44, .12, 5.00, .11),
          row("cpu100", 12.57, .27, 8.27, .26, 7.58, .38, 7.50, .39, 6.74, .12, 4.79, .13),
          row("cpu200", 16.97, .26, 12.55, .58, 10.33, .36, 10.02, .46, 7.85, .20, 5.18, .15),
          row("cpu250", 20.00, .31, 16.43, .43, 12.25, .58, 11.95, .64, 8.79, .24, 6.80, .27),
          row("gpushare40", 15.14, .32, 10.70, .13, 10.24, .58, 10.23, .50, 8.56, .19, 6.04, .07),
          row("gpushare60", 17.19, .33, 13.18, .27, 13.10, .39, 12.85, .35, 10.94, .17, 8.75, .12),
          row("gpushare80", 19.38, .27, 15.86, .18, 15.50, .51, 15.35, .47, 13.34, .23, 10.92, .10),
          row(
              "gpushare100",
              21.10,
              .15,
              18.02,
              .28,
              17.78,
              .48,
              17.87,
              .48,
              15.38,
              .21,
              13.36,
              .15),
          row("multigpu20", 13.08, .49, 8.15, .30, 6.66, .57, 6.50, .60, 6.27, .24, 4.47, .15),
          row("multigpu30", 13.37, .44, 6.89, .30, 5.45, .30, 5.30, .30, 5.43, .22, 3.64, .09),
          row("multigpu40", 14.62, .72, 5.96, .20, 4.65, .29, 4.41, .30, 4.90, .22, 3.09, .10),
          row("multigpu50", 18.72, .79, 5.27, .19, 4.31, .27, 3.94, .29, 4.38, .17, 2.91, .10),
          row("gpuspec10", 13.74, .24, 9.83, .37, 8.04, .67, 7.76, .62, 6.90, .20, 5.34, .18),
          row("gpuspec20", 14.10, .33, 11.71, .16, 10.89, .20, 10.72, .24, 11.54, .12, 5.34, .13),
          row("gpuspec25", 14.58, .32, 14.56, .16, 13.59, .27, 13.23, .34, 14.33, .19, 6.09, .10),
          row("gpuspec33", 16.13, .25, 20.18, .24, 18.91, .21, 17.78, .37, 19.61, .26, 12.16, .17));

  private PaperNumbers() {}

  private static Map.Entry<String, double[]> row(String trace, double... v) {
    return Map.entry(trace, v);
  }

  /** The published value for a trace and policy, if the paper has one. */
  public static Optional<Value> unallocatedAt100(String trace, String policy) {
    double[] v = TABLE.get(trace);
    if (v == null) {
      return Optional.empty();
    }
    for (int i = 0; i < POLICIES.length; i++) {
      if (POLICIES[i].equals(policy)) {
        return Optional.of(new Value(v[2 * i], v[2 * i + 1]));
      }
    }
    return Optional.empty();
  }
}
