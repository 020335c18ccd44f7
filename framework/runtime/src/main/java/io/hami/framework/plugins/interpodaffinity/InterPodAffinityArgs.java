package io.hami.framework.plugins.interpodaffinity;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;

/**
 * Arguments of {@link InterPodAffinityPlugin}, as kube-scheduler's {@code InterPodAffinityArgs}.
 *
 * @param hardPodAffinityWeight the score weight of an existing pod's required affinity term that
 *     the incoming pod matches, in 0..100; 0 leaves such terms out of scoring
 * @param ignorePreferredTermsOfExistingPods whether Score leaves out the preferred terms of pods
 *     already on nodes and counts only the incoming pod's own preferred terms
 */
public record InterPodAffinityArgs(
    int hardPodAffinityWeight, boolean ignorePreferredTermsOfExistingPods) implements PluginArgs {

  /** kube-scheduler's default {@code hardPodAffinityWeight}. */
  public static final int DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1;

  /** The largest {@code hardPodAffinityWeight}. */
  public static final int MAX_HARD_POD_AFFINITY_WEIGHT = 100;

  public static InterPodAffinityArgs defaults() {
    return new InterPodAffinityArgs(DEFAULT_HARD_POD_AFFINITY_WEIGHT, false);
  }

  @Override
  public void validate(FieldErrors errors) {
    if (hardPodAffinityWeight < 0 || hardPodAffinityWeight > MAX_HARD_POD_AFFINITY_WEIGHT) {
      errors.invalid(
          "hardPodAffinityWeight",
          hardPodAffinityWeight,
          "not in valid range [0-" + MAX_HARD_POD_AFFINITY_WEIGHT + "]");
    }
  }
}
