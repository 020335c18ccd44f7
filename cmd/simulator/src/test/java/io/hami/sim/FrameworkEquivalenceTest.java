package io.hami.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.plugins.placement.PaperPolicy;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fast replay places every pod on the same node and GPUs as the real scheduler (in-memory
 * cluster, placement/fgd score plugins, vgpu's fit and Reserve) for every policy of the paper
 * (Random-fit's draws included: both engines draw from the same stream), on a slice of a trace with
 * model constraints, sharing and multi-GPU pods; and HAMi's binpack and spread likewise (the vgpu
 * node score, the default scores that break its ties, and vgpu's card order). {@link
 * EngineEquivalenceCheck} checks whole traces.
 */
final class FrameworkEquivalenceTest {

  private static PreparedTrace slice;

  @BeforeAll
  static void load() throws Exception {
    Trace full = BundledTraces.trace("gpuspec10");
    slice =
        PreparedTrace.of(
            new Trace("slice", full.nodes().subList(0, 60), full.pods().subList(0, 400)));
  }

  static Stream<PaperPolicy> policies() {
    return Stream.of(PaperPolicy.values());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void samePlacementsAsTheScheduler(PaperPolicy policy) {
    RunResult fast = new Replay(slice).run(policy, 7);
    RunResult real =
        new FrameworkReplay(slice)
            .run(FrameworkPolicy.byName(policy.policyName()).orElseThrow(), 7);
    assertThat(real.podIndex()).isEqualTo(fast.podIndex());
    assertThat(real.node()).isEqualTo(fast.node());
    assertThat(real.gpuMask()).isEqualTo(fast.gpuMask());
    assertThat(real.fragment()).isEqualTo(fast.fragment());
    assertThat(fast.failed()).isPositive();
  }

  static Stream<HamiPolicy> hamiPolicies() {
    return Stream.of(HamiPolicy.values());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hamiPolicies")
  void hamiPolicies_samePlacementsAsTheScheduler(HamiPolicy policy) {
    RunResult fast = new HamiReplay(slice).run(policy, 7);
    RunResult real = new FrameworkReplay(slice).run(policy.framework(), 7);
    assertThat(EngineCheck.firstDifference(slice, fast, real)).isEmpty();
    assertThat(real.gpuMask()).isEqualTo(fast.gpuMask());
    assertThat(real.fragment()).isEqualTo(fast.fragment());
    assertThat(fast.failed()).isPositive();
  }
}
