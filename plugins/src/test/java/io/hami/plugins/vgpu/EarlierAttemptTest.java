package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.EarlierAttempts.MIB;
import static io.hami.plugins.vgpu.EarlierAttempts.asking;
import static io.hami.plugins.vgpu.EarlierAttempts.holding;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.ExcludedNodes;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.Snapshot;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.local.PodOutcome;
import io.hami.framework.testing.PluginHarness;
import io.hami.model.BindPhase;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.plugins.GpuSchedulingTest;
import io.hami.plugins.vgpu.EarlierAttempts.Counts;
import io.hami.plugins.vgpu.EarlierAttempts.Fixture;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pod scheduled again while the index still counts an earlier attempt for it (unbound, carrying
 * that attempt's annotations): PreFilter and the dry runs made from its state change nothing
 * shared, the cycle sees the pod's node without the earlier usage, Reserve replaces the earlier
 * accounting in one change, and Unreserve leaves the index as the pod's annotations say. The
 * cluster is {@link EarlierAttempts.Fixture}.
 */
final class EarlierAttemptTest {

  // PreFilter and what runs on its state change nothing shared

  record ReadOnly(String name, boolean earlier, Consumer<Fixture> run) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ReadOnly> readOnly() {
    Consumer<Fixture> dryRun =
        f -> {
          CycleState dry = f.preFilter().copy();
          NodeInfo n2 = f.node("n2");
          f.plugin.removePod(dry, f.pod, PodInfo.of(f.victim), n2);
          f.plugin.filter(dry, f.pod, n2);
          f.plugin.addPod(dry, f.pod, PodInfo.of(f.victim), n2);
          f.plugin.filter(dry, f.pod, f.node("n1"));
        };
    Consumer<Fixture> cycle =
        f -> {
          CycleState s = f.preFilter();
          for (NodeInfo n : f.nodes) {
            f.plugin.filter(s, f.pod, n);
            f.plugin.score(s, f.pod, n);
          }
        };
    return Stream.of(
        new ReadOnly("PreFilter", true, Fixture::preFilter),
        new ReadOnly("PreFilter twice", true, f -> List.of(f.preFilter(), f.preFilter())),
        new ReadOnly("Filter and Score", true, cycle),
        new ReadOnly("preemption dry run", true, dryRun),
        new ReadOnly("explain's reasons", true, f -> f.plugin.deviceReasons(f.pod, "n1")),
        new ReadOnly("PreFilter, no earlier attempt", false, Fixture::preFilter),
        new ReadOnly("preemption dry run, no earlier attempt", false, dryRun));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("readOnly")
  void preFilterAndWhatRunsOnItsState_leaveTheIndexAsItWas(ReadOnly c) {
    Fixture f = new Fixture(c.earlier());
    Counts before = f.counts();
    Map<String, Long> versions = f.versions();
    c.run().accept(f);
    assertThat(f.counts()).isEqualTo(before);
    assertThat(f.versions()).isEqualTo(versions);
    if (c.earlier()) {
      assertThat(before.p()).isNotNull();
      assertThat(before.usedMem().get("n1")).containsExactly(MIB);
    }
  }

  // The cycle sees the node without the earlier usage

  @ParameterizedTest(name = "earlier attempt {0}")
  @MethodSource("booleans")
  void theCycle_seesThePodsNodeAsIfTheEarlierAttemptWereGone(boolean earlier) {
    Fixture again = new Fixture(earlier);
    Fixture fresh = new Fixture(false);
    PluginHarness.Result r =
        PluginHarness.create().plugin(again.plugin).snapshot(again.snapshot()).run(again.pod);
    PluginHarness.Result expected =
        PluginHarness.create().plugin(fresh.plugin).snapshot(fresh.snapshot()).run(fresh.pod);

    assertThat(r.feasible()).containsExactly("n1", "n2");
    assertThat(r.scores()).isEqualTo(expected.scores());
    assertThat(r.selected()).isEqualTo(expected.selected());
    assertThat(again.plugin.deviceReasons(again.pod, "n1")).isEmpty();
    // The free shares are read with the earlier usage (3 GiB left on n1): n1 is excluded for
    // another pod of the same shape, never for the pod itself.
    ExcludedNodes mine = excluded(again, again.pod);
    assertThat(mine == null || !mine.excluded(0)).isTrue();
    ExcludedNodes other = excluded(again, asking("q"));
    assertThat(other != null && other.excluded(0)).isEqualTo(earlier);
  }

  @Test
  void explainsReasons_areThoseOfTheViewFilterSaw() {
    Fixture f = new Fixture(true);
    // n2 is full when Filter reads it: v's 2 GiB and w's 12 GiB.
    Pod w = holding("w", "low", "n2", MIB, BindPhase.SUCCESS).nodeName("n2").obj();
    f.handle.firePodAdd(w);
    // A NodeInfo of the scheduler's cache (generation above 0) keeps the view Filter read.
    NodeInfo n2 = f.node("n2").withGeneration(1);
    f.handle.withSnapshot(Snapshot.of(List.of(f.node("n1"), n2)));
    CycleState s = f.preFilter();
    assertThat(f.plugin.filter(s, f.pod, n2).isSuccess()).isFalse();
    // w is gone before the failure is recorded: the record still explains Filter's verdict.
    f.handle.firePodDelete(w);

    assertThat(f.plugin.deviceReasons(f.pod, "n2"))
        .singleElement()
        .asString()
        .contains("CardInsufficientMemory");
    assertThat(f.plugin.deviceReasons(f.pod, "n1")).isEmpty();
  }

  static @Nullable ExcludedNodes excluded(Fixture f, Pod pod) {
    PreFilterResult pre = f.plugin.preFilter(new CycleState(), pod, f.snapshot());
    assertThat(pre.status().isSuccess()).isTrue();
    return pre.excluded();
  }

  static Stream<Boolean> booleans() {
    return Stream.of(true, false);
  }

  // Reserve replaces the earlier accounting exactly once

  @ParameterizedTest(name = "reserved on {0}")
  @MethodSource("targets")
  void reserve_releasesTheEarlierAccountingExactlyOnce(String target) {
    Fixture f = new Fixture(true);
    CycleState s = f.preFilter();
    assertThat(f.plugin.reserve(s, f.pod, target).isSuccess()).isTrue();

    Counts reserved = f.counts();
    assertThat(reserved.usedMem())
        .containsEntry("n1", List.of(target.equals("n1") ? MIB : 0))
        .containsEntry("n2", List.of(2048 + (target.equals("n2") ? MIB : 0)));
    assertThat(reserved.teamMem()).isEqualTo(MIB);
    assertThat(requireNonNull(reserved.p()).node()).isEqualTo(target);
    assertThat(requireNonNull(reserved.p()).assumed()).isTrue();

    // A late event still showing the earlier attempt's annotations moves nothing (on n1 they
    // match the reservation, which they then confirm).
    f.handle.firePodUpdate(f.pod, f.attempt("n1"));
    Counts late = f.counts();
    assertThat(late.usedMem()).isEqualTo(reserved.usedMem());
    assertThat(late.teamMem()).isEqualTo(MIB);
    assertThat(requireNonNull(late.p()).node()).isEqualTo(target);

    // The binding lands: the informer shows the new annotations, then the pod goes.
    f.handle.firePodUpdate(f.pod, f.bound(target));
    Counts confirmed = f.counts();
    assertThat(confirmed.usedMem()).isEqualTo(reserved.usedMem());
    assertThat(confirmed.teamMem()).isEqualTo(MIB);
    assertThat(requireNonNull(confirmed.p()).assumed()).isFalse();
    f.handle.firePodDelete(f.bound(target));
    assertThat(f.counts())
        .isEqualTo(new Counts(Map.of("n1", List.of(0), "n2", List.of(2048)), null, 0));
  }

  static Stream<String> targets() {
    return Stream.of("n1", "n2");
  }

  // A failed cycle leaves the index as the pod's annotations say

  /**
   * @param name the case
   * @param fail what happens between Reserve on {@code target} and Unreserve
   * @param expected the counts after Unreserve, or null for the counts before the cycle
   */
  record Failed(String name, String target, Consumer<Fixture> fail, @Nullable Counts expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Failed> failed() {
    Consumer<Fixture> nothing = f -> {};
    // Compared by node and confirmation only.
    DeviceUsageIndex.Counted onN2 =
        new DeviceUsageIndex.Counted("n2", "team", PodUsage.EMPTY, false);
    return Stream.of(
        new Failed("Unreserve after Reserve on another node", "n2", nothing, null),
        new Failed("Unreserve after Reserve on the same node", "n1", nothing, null),
        new Failed(
            "the informer shows the earlier annotations again",
            "n2",
            f -> f.handle.firePodUpdate(f.pod, f.attempt("n1")),
            null),
        new Failed(
            "pod deleted meanwhile",
            "n2",
            f -> f.handle.firePodDelete(f.pod),
            new Counts(Map.of("n1", List.of(0), "n2", List.of(2048)), null, 0)),
        new Failed(
            "the informer confirmed the new placement",
            "n2",
            f -> f.handle.firePodUpdate(f.pod, f.bound("n2")),
            new Counts(Map.of("n1", List.of(0), "n2", List.of(2048 + MIB)), onN2, MIB)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failed")
  void aFailedCycle_leavesTheIndexAsThePodsAnnotationsSay(Failed c) {
    Fixture f = new Fixture(true);
    Counts before = f.counts();
    CycleState s = f.preFilter();
    assertThat(f.plugin.reserve(s, f.pod, c.target()).isSuccess()).isTrue();
    c.fail().accept(f);
    f.plugin.unreserve(s, f.pod, c.target());

    Counts after = f.counts();
    Counts expected = c.expected() == null ? before : c.expected();
    assertThat(after.usedMem()).isEqualTo(expected.usedMem());
    assertThat(after.teamMem()).isEqualTo(expected.teamMem());
    DeviceUsageIndex.Counted p = expected.p();
    if (p == null) {
      assertThat(after.p()).isNull();
    } else {
      assertThat(requireNonNull(after.p()).node()).isEqualTo(p.node());
      assertThat(requireNonNull(after.p()).assumed()).isEqualTo(p.assumed());
    }
  }

  // The scheduler itself

  /**
   * @param name the case
   * @param n2Full whether a bound pod holds 12 GiB on n2, so that p fits only where its earlier
   *     attempt is
   * @param placed where p, then q (12 GiB too), must be bound; r (12 GiB) never fits
   */
  record Scheduled(String name, boolean n2Full, List<String> placed) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Scheduled> scheduled() {
    return Stream.of(
        new Scheduled("both nodes free", false, List.of()),
        new Scheduled("only the earlier attempt's node free", true, List.of("n1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scheduled")
  void theScheduler_placesThePodOnceAndCountsItOnce(Scheduled c) {
    try (InMemoryCluster cluster = GpuSchedulingTest.cluster()) {
      for (String n : List.of("n1", "n2")) {
        cluster.addNode(MakeGpuNode.named(n).gpus(FakeGpus.t4s(n, 1)).obj());
      }
      if (c.n2Full()) {
        cluster.addPod(holding("v", "low", "n2", MIB, BindPhase.SUCCESS).nodeName("n2").obj());
      }
      cluster.addPod(holding("p", "team", "n1", MIB, BindPhase.ALLOCATING).obj());
      cluster.drain();
      PodOutcome p = cluster.outcome("team", "p").orElseThrow();
      assertThat(p.isBound()).as("p: %s", p.message()).isTrue();
      if (!c.placed().isEmpty()) {
        assertThat(p.node()).isEqualTo(c.placed().get(0));
      }
      if (!c.n2Full()) {
        // p counted neither twice (q would not fit) nor never (q could share p's card).
        cluster.addPod(asking("q"));
        cluster.drain();
        PodOutcome q = cluster.outcome("team", "q").orElseThrow();
        assertThat(q.isBound()).as("q: %s", q.message()).isTrue();
        assertThat(q.node()).isNotEqualTo(p.node());
      }
      cluster.addPod(asking("r"));
      cluster.drain();
      PodOutcome r = cluster.outcome("team", "r").orElseThrow();
      assertThat(r.isBound()).isFalse();
      assertThat(r.message()).contains("CardInsufficientMemory");
    }
  }
}
