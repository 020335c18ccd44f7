package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.Dev.dev;
import static io.hami.plugins.vgpu.EarlierAttempts.MIB;
import static io.hami.plugins.vgpu.MigFitTest.P2G10;
import static io.hami.plugins.vgpu.MigFitTest.P3G20;
import static io.hami.plugins.vgpu.MigFitTest.at;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.model.device.MigPlacement;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How a preemption dry run's overlay, or a pod's own earlier attempt left out, changes a node's
 * device view and a namespace's usage.
 */
final class UsageOverlayTest {

  /** g0: a MIG GPU holding two 2g.10gb instances; g1: a shared GPU with 3 pods. */
  static NodeDevices node() {
    return NodeDevices.of(
        "n1",
        List.of(
            dev("g0")
                .mem(40960)
                .migProfiles(P2G10, P3G20)
                .migUsed(at(0, 2), at(2, 2))
                .used(2)
                .usedMem(2 * 9856)
                .usedCores(56)
                .build(),
            dev("g1").index(1).mem(40960).used(3).usedMem(30720).usedCores(60).build()));
  }

  static PodUsage usage(String id, int mem, int cores, MigPlacement... mig) {
    return new PodUsage(
        ImmutableMap.of(
            id, new PodUsage.Usage(1, mem, cores, "NVIDIA", ImmutableList.copyOf(mig))));
  }

  record Case(String name, List<UsageOverlay.Change> changes, DeviceUsage g0, DeviceUsage g1) {
    @Override
    public String toString() {
      return name;
    }
  }

  static UsageOverlay.Change removed(PodUsage u) {
    return new UsageOverlay.Change("n1", "team", u, -1);
  }

  static UsageOverlay.Change added(PodUsage u) {
    return new UsageOverlay.Change("n1", "team", u, +1);
  }

  static Stream<Case> cases() {
    DeviceUsage g0 = node().devices().get(0);
    DeviceUsage g1 = node().devices().get(1);
    return Stream.of(
        new Case("nothing", List.of(), g0, g1),
        new Case(
            "a MIG instance removed frees its placement",
            List.of(removed(usage("g0", 9856, 28, at(0, 2)))),
            g0.withUsage(1, 9856, 28).withMig(g0.migProfiles(), List.of(at(2, 2))),
            g1),
        new Case(
            "a MIG instance added holds its placement",
            List.of(added(usage("g0", 19968, 42, at(4, 4)))),
            g0.withUsage(3, 2 * 9856 + 19968, 98)
                .withMig(g0.migProfiles(), List.of(at(0, 2), at(2, 2), at(4, 4))),
            g1),
        new Case(
            "shares removed and added on one GPU",
            List.of(
                removed(usage("g1", 10240, 20)),
                removed(usage("g1", 10240, 20)),
                added(usage("g1", 4096, 5))),
            g0,
            g1.withUsage(2, 30720 - 20480 + 4096, 25)),
        new Case(
            "never below zero",
            List.of(
                removed(usage("g1", 30720, 60)),
                removed(usage("g1", 30720, 60)),
                removed(usage("g1", 30720, 60)),
                removed(usage("g1", 30720, 60))),
            g0,
            g1.withUsage(0, 0, 0)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void apply(Case c) {
    UsageOverlay o = new UsageOverlay();
    for (int i = 0; i < c.changes().size(); i++) {
      o.put("p" + i, c.changes().get(i));
    }
    NodeDevices view = o.apply(node());
    assertThat(view.devices()).containsExactly(c.g0(), c.g1());
    // Another node's view is the same object.
    NodeDevices other = NodeDevices.of("n2", List.of(dev("x").build()));
    assertThat(o.apply(other)).isSameAs(other);
  }

  @Test
  void namespaceUsage_followsTheChangesOfItsPods() {
    UsageOverlay o = new UsageOverlay();
    o.put("a", removed(usage("g1", 10240, 20)));
    o.put("b", added(usage("g1", 4096, 5)));
    o.put("c", new UsageOverlay.Change("n1", "other", usage("g1", 1000, 1), -1));
    NamespaceUsage base = NamespaceUsage.NONE.plus("NVIDIA", 30720, 60);
    NamespaceUsage u = o.namespace("team", base);
    assertThat(u.memMiB("NVIDIA")).isEqualTo(30720 - 10240 + 4096);
    assertThat(u.cores("NVIDIA")).isEqualTo(45);
  }

  @Test
  void copy_isDeep() {
    UsageOverlay o = new UsageOverlay();
    o.put("a", removed(usage("g1", 10240, 20)));
    UsageOverlay c = o.copy();
    c.drop("a");
    c.put("b", added(usage("g1", 4096, 5)));
    assertThat(o.change("a")).isNotNull();
    assertThat(o.change("b")).isNull();
    assertThat(c.change("a")).isNull();
    assertThat(o.apply(node()).devices().get(1).usedMemMiB()).isEqualTo(20480);
    assertThat(c.apply(node()).devices().get(1).usedMemMiB()).isEqualTo(34816);
  }

  /**
   * @param name the case
   * @param earlier whether the index counts the pod's earlier attempt on n1
   * @param state the cycle state to read under
   * @param wantUsedMem each node's used memory under the state; the node changed when it differs
   *     from the index's
   */
  record Read(
      String name,
      boolean earlier,
      Function<EarlierAttempts.Fixture, CycleState> state,
      Map<String, Integer> wantUsedMem) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Read> reads() {
    Function<EarlierAttempts.Fixture, CycleState> victimRemoved =
        f -> {
          CycleState dry = f.preFilter().copy();
          f.plugin.removePod(dry, f.pod, PodInfo.of(f.victim), f.node("n2"));
          return dry;
        };
    return Stream.of(
        new Read("a fresh pod's cycle", false, f -> f.preFilter(), Map.of("n1", 0, "n2", 2048)),
        new Read("no vgpu state", true, f -> new CycleState(), Map.of("n1", MIB, "n2", 2048)),
        new Read("the pod scheduled again", true, f -> f.preFilter(), Map.of("n1", 0, "n2", 2048)),
        new Read("a dry run's victim removed", false, victimRemoved, Map.of("n1", 0, "n2", 0)),
        new Read(
            "a dry run's victim removed and added back",
            false,
            f -> {
              CycleState dry = victimRemoved.apply(f);
              f.plugin.addPod(dry, f.pod, PodInfo.of(f.victim), f.node("n2"));
              return dry;
            },
            Map.of("n1", 0, "n2", 2048)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reads")
  void theCyclesView_isThePinnedViewUnlessTheOverlayChangesTheNode(Read c) {
    EarlierAttempts.Fixture f = new EarlierAttempts.Fixture(c.earlier());
    CycleState state = c.state().apply(f);
    for (NodeInfo n : f.nodes) {
      NodeDevices pinned = f.index().node(n);
      NodeDevices changed = UsageOverlay.changedView(state, f.index(), n);
      NodeDevices seen = UsageOverlay.view(state, f.index(), n);
      int want = c.wantUsedMem().get(n.name());
      assertThat(seen.devices().get(0).usedMemMiB()).as(n.name()).isEqualTo(want);
      if (want == pinned.devices().get(0).usedMemMiB()) {
        assertThat(changed).as(n.name()).isNull();
        assertThat(seen).as(n.name()).isSameAs(pinned);
      } else {
        assertThat(changed).as(n.name()).isNotNull();
        assertThat(seen).as(n.name()).isEqualTo(changed);
      }
    }
  }
}
