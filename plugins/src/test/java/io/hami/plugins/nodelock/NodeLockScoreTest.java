package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
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
}
