package io.hami.plugins.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.plugins.fgd.HamiShape;
import io.hami.plugins.fgd.HamiWorkload;
import io.hami.plugins.vgpu.DeviceChoice;
import io.hami.plugins.vgpu.DeviceUsageIndex;
import io.hami.plugins.vgpu.EarlierAttempts;
import io.hami.plugins.vgpu.EarlierAttempts.Fixture;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The placement policies score the devices the cycle sees, as {@code vgpu} reads them: a pod
 * scheduled again is scored on its old node as if its earlier attempt were gone, and a preemption
 * dry run's victims free their shares for the policy as they do for {@code vgpu}. The cluster is
 * {@link Fixture}'s: one T4 on each of n1 and n2, a 12 GiB pod, a 2 GiB victim on n2.
 */
final class PlacementCycleViewTest {

  /**
   * @param name the policy
   * @param plugin the placement plugin over a fixture's handle and index
   * @param wantDryRunMoves whether freeing the victim's 2 GiB changes the policy's score of n2 (not
   *     Random-fit's, always 0, nor DotProd's, whose whole points do not see 2 GiB of one card)
   */
  record Case(
      String name,
      BiFunction<FrameworkHandle, DeviceUsageIndex, PlacementPlugin> plugin,
      boolean wantDryRunMoves) {
    @Override
    public String toString() {
      return name;
    }

    PlacementPlugin on(Fixture f) {
      return plugin.apply(f.handle, f.index());
    }
  }

  /** A target workload of half cards and whole cards. */
  static final HamiWorkload WORKLOAD =
      HamiWorkload.of(
          List.of(
              HamiShape.ofShare(1000, 1, 500, List.of()),
              HamiShape.ofShare(1000, 1, 1000, List.of())),
          new long[] {1, 1});

  static Stream<Case> cases() {
    Stream<Case> baselines =
        Stream.of(PaperPolicy.values())
            .filter(p -> p != PaperPolicy.FGD)
            .map(
                p ->
                    new Case(
                        p.name(),
                        (h, index) ->
                            new PlacementPlugin(
                                PlacementPlugin.NAME,
                                p,
                                h,
                                index,
                                PlacementPlugin.Workloads.none(),
                                1),
                        p != PaperPolicy.RANDOM && p != PaperPolicy.DOT_PRODUCT));
    Stream<Case> fgd =
        Stream.of(new Case("FGD", (h, index) -> FgdPlugin.withWorkload(WORKLOAD, h, index), true));
    return Stream.concat(baselines, fgd);
  }

  /** The plugin's score of every node under {@code state}, after PreScore. */
  static Map<String, Long> scores(PlacementPlugin plugin, Fixture f, CycleState state) {
    assertThat(plugin.preScore(state, f.pod, f.nodes).isSuccess()).isTrue();
    Map<String, Long> out = new TreeMap<>();
    for (NodeInfo n : f.nodes) {
      out.put(n.name(), plugin.score(state, f.pod, n));
    }
    return out;
  }

  /** The GPUs the plugin prefers for the pod when reserved on {@code node}, or null. */
  static @Nullable DeviceChoice reserved(
      PlacementPlugin plugin, Fixture f, CycleState state, String node) {
    assertThat(plugin.reserve(state, f.pod, node).isSuccess()).isTrue();
    return state.get(VgpuPlugin.PREFERRED_DEVICES);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void aPodScheduledAgain_isScoredOnItsOldNodeAsAFreshPod(Case c) {
    Fixture again = new Fixture(true);
    Fixture fresh = new Fixture(false);
    PlacementPlugin mine = c.on(again);
    PlacementPlugin theirs = c.on(fresh);
    CycleState state = again.preFilter();
    CycleState expected = fresh.preFilter();

    Map<String, Long> want = scores(theirs, fresh, expected);
    assertThat(scores(mine, again, state)).isEqualTo(want);
    // Read again from what the NodeInfos keep: the same.
    assertThat(scores(mine, again, state)).isEqualTo(want);
    DeviceChoice choice = reserved(theirs, fresh, expected, "n1");
    assertThat(choice).as("the pod fits n1 once its earlier attempt is left out").isNotNull();
    assertThat(reserved(mine, again, state, "n1")).isEqualTo(choice);

    // Another pod's cycle still sees the earlier attempt, which the index counts.
    CycleState other = new CycleState();
    Pod q = EarlierAttempts.asking("q");
    assertThat(again.plugin.preFilter(other, q, again.snapshot()).status().isSuccess()).isTrue();
    assertThat(mine.preScore(other, q, again.nodes).isSuccess()).isTrue();
    assertThat(mine.score(other, q, again.node("n1"))).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void aDryRun_changesThePlacementScoreAsItChangesTheVgpuScore(Case c) {
    Fixture f = new Fixture(false);
    Fixture gone = new Fixture(false);
    gone.handle.firePodDelete(gone.victim);
    PlacementPlugin plugin = c.on(f);
    CycleState state = f.preFilter();
    NodeInfo n2 = f.node("n2");
    Map<String, Long> cycle = scores(plugin, f, state);
    long vgpuCycle = f.plugin.score(state, f.pod, n2);
    long wantFreed = scores(c.on(gone), gone, gone.preFilter()).get("n2");
    long vgpuFreed = gone.plugin.score(gone.preFilter(), gone.pod, gone.node("n2"));

    CycleState dry = state.copy();
    assertThat(f.plugin.removePod(dry, f.pod, PodInfo.of(f.victim), n2).isSuccess()).isTrue();
    assertThat(f.plugin.score(dry, f.pod, n2)).isEqualTo(vgpuFreed).isNotEqualTo(vgpuCycle);
    assertThat(plugin.score(dry, f.pod, n2)).isEqualTo(wantFreed);
    assertThat(wantFreed != cycle.get("n2")).isEqualTo(c.wantDryRunMoves());
    // n1, which the dry run leaves as it is, and the cycle's own state score as before.
    assertThat(plugin.score(dry, f.pod, f.node("n1"))).isEqualTo(cycle.get("n1"));
    assertThat(plugin.score(state, f.pod, n2)).isEqualTo(cycle.get("n2"));

    assertThat(f.plugin.addPod(dry, f.pod, PodInfo.of(f.victim), n2).isSuccess()).isTrue();
    assertThat(f.plugin.score(dry, f.pod, n2)).isEqualTo(vgpuCycle);
    assertThat(plugin.score(dry, f.pod, n2)).isEqualTo(cycle.get("n2"));
  }
}
