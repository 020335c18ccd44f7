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
}
