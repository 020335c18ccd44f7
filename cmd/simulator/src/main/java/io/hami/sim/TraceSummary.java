package io.hami.sim;

import java.util.List;

/**
 * The results of every policy on one trace.
 *
 * @param emptyFragmentationRate fragmentation rate of the empty cluster in percent
 * @param targetShapes number of task shapes in the target workload
 */
public record TraceSummary(
    String trace,
    int nodes,
    int gpus,
    int pods,
    double emptyFragmentationRate,
    int targetShapes,
    List<PolicySummary> policies) {
  public TraceSummary {
    policies = List.copyOf(policies);
  }
}
