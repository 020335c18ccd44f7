package io.hami.sim;

import io.hami.plugins.placement.PaperPolicy;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks that the fast replay places every pod of a run exactly as the real scheduler does: same
 * submission order, and for every pod the same node, the same GPUs and the same cluster fragment
 * afterwards. This is what lets the fast engine stand in for the scheduler in reports.
 */
public final class EngineCheck {

  private EngineCheck() {}

  /** The first difference between the two engines for one run, or empty when they agree. */
  public static Optional<String> firstDifference(
      PreparedTrace trace, PaperPolicy policy, long seed) {
    RunResult fast = new Replay(trace).run(policy, seed);
    FrameworkPolicy same = FrameworkPolicy.byName(policy.policyName()).orElseThrow();
    RunResult real = new FrameworkReplay(trace).run(same, seed);
    return firstDifference(trace, fast, real);
  }

  /** {@link #firstDifference(PreparedTrace, PaperPolicy, long)} for one of HAMi's policies. */
  public static Optional<String> firstDifference(
      PreparedTrace trace, HamiPolicy policy, long seed) {
    RunResult fast = new HamiReplay(trace).run(policy, seed);
    RunResult real = new FrameworkReplay(trace).run(policy.framework(), seed);
    return firstDifference(trace, fast, real);
  }

  /**
   * The first difference for a policy of either kind by name, or empty when the engines agree.
   *
   * @throws IllegalArgumentException when the fast engine does not know the policy
   */
  public static Optional<String> firstDifference(PreparedTrace trace, String policy, long seed) {
    Optional<PaperPolicy> paper = PaperPolicy.byName(policy);
    if (paper.isPresent()) {
      return firstDifference(trace, paper.get(), seed);
    }
    HamiPolicy hami =
        HamiPolicy.byName(policy)
            .orElseThrow(() -> new IllegalArgumentException("unknown policy " + policy));
    return firstDifference(trace, hami, seed);
  }

  static Optional<String> firstDifference(PreparedTrace trace, RunResult fast, RunResult real) {
    if (!Arrays.equals(fast.podIndex(), real.podIndex())) {
      return Optional.of("the engines submitted pods in different orders");
    }
    for (int i = 0; i < fast.pods(); i++) {
      if (fast.node()[i] != real.node()[i]
          || fast.gpuMask()[i] != real.gpuMask()[i]
          || fast.fragment()[i] != real.fragment()[i]) {
        return Optional.of(
            String.format(
                Locale.ROOT,
                "pod #%d (%s): fast engine %s, scheduler %s",
                i,
                trace.pods().get(fast.podIndex()[i]).name(),
                placement(trace, fast.node()[i], fast.gpuMask()[i]),
                placement(trace, real.node()[i], real.gpuMask()[i])));
      }
    }
    return Optional.empty();
  }

  private static String placement(PreparedTrace trace, int node, int gpuMask) {
    if (node < 0) {
      return "failed";
    }
    StringBuilder gpus = new StringBuilder();
    for (int g = 0; g < Integer.SIZE; g++) {
      if ((gpuMask & (1 << g)) != 0) {
        gpus.append(gpus.length() == 0 ? "" : ",").append(g);
      }
    }
    return trace.nodes().get(node).name() + (gpus.length() == 0 ? "" : " GPUs " + gpus);
  }
}
