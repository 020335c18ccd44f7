package io.hami.framework.plugins.defaultpreemption;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;

/**
 * Arguments of {@link DefaultPreemptionPlugin}, as kube-scheduler's {@code DefaultPreemptionArgs}:
 * how many candidate nodes the dry run looks for before it picks one, at least {@code
 * minCandidateNodesPercentage} percent of the nodes where preemption may help and at least {@code
 * minCandidateNodesAbsolute} of them (never more than there are).
 *
 * @param minCandidateNodesPercentage in 0..100; default 10
 * @param minCandidateNodesAbsolute at least 0; default 100; not 0 together with the percentage
 */
public record DefaultPreemptionArgs(int minCandidateNodesPercentage, int minCandidateNodesAbsolute)
    implements PluginArgs {

  public static final int DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10;
  public static final int DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100;

  public static DefaultPreemptionArgs defaults() {
    return new DefaultPreemptionArgs(
        DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE, DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE);
  }

  @Override
  public void validate(FieldErrors errors) {
    if (minCandidateNodesPercentage < 0 || minCandidateNodesPercentage > 100) {
      errors.invalid(
          "minCandidateNodesPercentage",
          minCandidateNodesPercentage,
          "not in valid range [0, 100]");
    }
    if (minCandidateNodesAbsolute < 0) {
      errors.invalid(
          "minCandidateNodesAbsolute", minCandidateNodesAbsolute, "not in valid range [0, inf)");
    }
    if (minCandidateNodesPercentage == 0 && minCandidateNodesAbsolute == 0) {
      errors.invalid(
          "minCandidateNodesPercentage",
          0,
          "cannot be zero at the same time as minCandidateNodesAbsolute");
      errors.invalid(
          "minCandidateNodesAbsolute",
          0,
          "cannot be zero at the same time as minCandidateNodesPercentage");
    }
  }

  /** How many candidates to look for among {@code numNodes} potential nodes. */
  int numCandidates(int numNodes) {
    int n = (int) ((long) numNodes * minCandidateNodesPercentage / 100);
    n = Math.max(n, minCandidateNodesAbsolute);
    return Math.min(n, numNodes);
  }
}
