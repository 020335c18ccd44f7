package io.hami.framework.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Topology spreading through the whole scheduler, with the default profile. */
class PodTopologySpreadClusterTest {

  @Test
  void zoneSpreadWithMaxSkew1_placesSixPodsTwoPerZone() {
    try (InMemoryCluster c = InMemoryCluster.builder(BuiltInPlugins.registry()).build()) {
      // Zone a has the roomiest nodes, so resource scoring alone would pile pods there.
      c.addNode(MakeNode.named("a1").zone("a").capacity("64", "256Gi", 110).obj());
      c.addNode(MakeNode.named("a2").zone("a").capacity("64", "256Gi", 110).obj());
      c.addNode(MakeNode.named("b1").zone("b").capacity("4", "8Gi", 110).obj());
      c.addNode(MakeNode.named("c1").zone("c").capacity("4", "8Gi", 110).obj());
      for (int i = 0; i < 6; i++) {
        c.addPod(
            MakePod.named("web-" + i)
                .label("app", "web")
                .cpu("500m")
                .topologySpread(1, "topology.kubernetes.io/zone", "DoNotSchedule", "app", "web")
                .obj());
      }
      assertThat(c.drain().bound()).isEqualTo(6);
      Map<String, Integer> perZone = new TreeMap<>();
      c.outcomes().values().forEach(o -> perZone.merge(o.node().substring(0, 1), 1, Integer::sum));
      assertThat(perZone).isEqualTo(Map.of("a", 2, "b", 2, "c", 2));
    }
  }

  @Test
  void podBlockedBySpread_isRetriedWhenALabelChangeUnblocksIt() {
    try (InMemoryCluster c = InMemoryCluster.builder(BuiltInPlugins.registry()).build()) {
      c.addNode(MakeNode.named("a1").zone("a").capacity("8", "16Gi", 110).obj());
      c.addNode(MakeNode.named("b1").zone("b").capacity("1", "16Gi", 110).obj());
      c.addPod(MakePod.named("old").label("app", "web").nodeName("a1").obj());
      c.addPod(MakePod.named("filler").cpu("1").nodeName("b1").obj());
      c.addPod(
          MakePod.named("new")
              .label("app", "web")
              .cpu("500m")
              .topologySpread(1, "topology.kubernetes.io/zone", "DoNotSchedule", "app", "web")
              .obj());
      c.drain();
      // Zone a would be 2 against 0; zone b has no room.
      assertThat(c.outcome("default", "new").orElseThrow().isBound()).isFalse();
      assertThat(c.scheduler().queue().unschedulableSize()).isEqualTo(1);
      // Only the spread constraint cares about labels: the pod is retried at once, no flush.
      c.updatePod(
          MakePod.named("old").label("app", "db").nodeName("a1").resourceVersion("2").obj());
      c.drain();
      assertThat(c.outcome("default", "new").orElseThrow().node()).isEqualTo("a1");
    }
  }
}
