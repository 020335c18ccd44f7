package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
import io.hami.plugins.metrics.GpuMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class NodeLockScoreTest {

  record Case(String name, List<PodInfo> pods, boolean locked, int want) {
    Case(String name, List<PodInfo> pods, int want) {
      this(name, pods, false, want);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static PodInfo bound(String name, String bindPhase) {
    MakePod p = MakePod.named(name).uid("uid-" + name).nodeName("n1");
    if (bindPhase != null) {
      p.annotation(Annotations.BIND_PHASE, bindPhase);
    }
    return PodInfo.of(p.obj());
  }

  static Stream<Case> cases() {
    Pod placed = MakePod.named("placed").uid("uid-placed").obj();
    Pod deleted =
        MakePod.named("deleted")
            .uid("uid-deleted")
            .nodeName("n1")
            .annotation(Annotations.BIND_PHASE, "allocating")
            .obj();
    deleted.getMetadata().setDeletionTimestamp("2026-08-21T08:20:39Z");
    return Stream.of(
        new Case("empty node", List.of(), 0),
        new Case(
            "served and plain pods",
            List.of(bound("a", "success"), bound("b", null), bound("c", "failed")),
            0),
        new Case("placed, not bound yet", List.of(PodInfo.of(placed).withAssumed(true)), 1),
        new Case(
            "bound, waiting for Allocate",
            List.of(bound("a", "allocating"), bound("b", "success")),
            1),
        new Case(
            "both", List.of(PodInfo.of(placed).withAssumed(true), bound("a", "allocating")), 2),
        new Case("deleted while allocating", List.of(PodInfo.of(deleted)), 0),
        new Case("served, lock not yet removed", List.of(bound("a", "success")), true, 1),
        new Case(
            "lock and two in flight",
            List.of(bound("a", "allocating"), PodInfo.of(placed).withAssumed(true)),
            true,
            2));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void inPipeline_countsPodsThatHoldOrWaitForTheLock(Case c) {
    Node n = MakeNode.named("n1").obj();
    if (c.locked()) {
      n.getMetadata()
          .setAnnotations(Map.of(Annotations.MUTEX_LOCK, "2026-08-21T08:20:39Z,default,a"));
    }
    NodeInfo node = NodeInfo.of(n, c.pods());
    assertThat(NodeLockPlugin.inPipeline(node)).isEqualTo(c.want());
  }

  record Limit(String name, int maxBusyNodes, List<Integer> inFlight, List<Long> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Limit> limits() {
    return Stream.of(
        new Limit("no limit: fewer in flight first", 0, List.of(0, 1, 2), List.of(100L, 50L, 33L)),
        new Limit("under the limit", 3, List.of(0, 1, 2), List.of(100L, 50L, 33L)),
        new Limit("at the limit: all alike", 2, List.of(0, 1, 2), List.of(100L, 100L, 100L)),
        new Limit("above the limit", 1, List.of(3, 1, 0), List.of(100L, 100L, 100L)),
        new Limit("no node busy", 1, List.of(0, 0), List.of(100L, 100L)));
  }

  /** A node with {@code n} pods placed and not yet bound. */
  static NodeInfo withInFlight(String name, int n) {
    List<PodInfo> pods = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      pods.add(
          PodInfo.of(MakePod.named(name + "-" + i).uid(name + "-" + i).obj()).withAssumed(true));
    }
    return NodeInfo.of(MakeNode.named(name).obj(), pods);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("limits")
  void maxBusyNodes_ranksNodesAlikeOnceThatManyAreBusy(Limit c) {
    NodeLockArgs args = new NodeLockArgs(300, 300, 5, NodeLockArgs.MODE_NODE, c.maxBusyNodes());
    FakeHandle handle = new FakeHandle();
    NodeLockPlugin plugin =
        new NodeLockPlugin(args, handle, null, new GpuMetrics(handle.metricsRegistry()));
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < c.inFlight().size(); i++) {
      nodes.add(withInFlight("n" + i, c.inFlight().get(i)));
    }
    CycleState state = NodeLockIT.gpuState();
    Pod pod = MakePod.named("p").uid("uid-p").obj();

    assertThat(plugin.preScore(state, pod, nodes).isSuccess()).isTrue();
    assertThat(nodes.stream().map(n -> plugin.score(state, pod, n)).toList()).isEqualTo(c.want());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("limits")
  void podsWithoutDevices_rankNodesAlike(Limit c) {
    NodeLockArgs args = new NodeLockArgs(300, 300, 5, NodeLockArgs.MODE_NODE, c.maxBusyNodes());
    FakeHandle handle = new FakeHandle();
    NodeLockPlugin plugin =
        new NodeLockPlugin(args, handle, null, new GpuMetrics(handle.metricsRegistry()));
    CycleState state = new CycleState();
    Pod pod = MakePod.named("p").uid("uid-p").obj();
    List<NodeInfo> nodes = List.of(withInFlight("a", 0), withInFlight("b", 2));

    assertThat(plugin.preScore(state, pod, nodes).isSuccess()).isTrue();
    assertThat(nodes.stream().map(n -> plugin.score(state, pod, n)).toList())
        .containsOnly(NodeLockPlugin.MAX_NODE_SCORE);
  }
}
