package io.hami.framework.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Pod anti-affinity through the whole scheduler, with the default profile. */
class InterPodAffinityClusterTest {

  private static Pod replica(int i) {
    return MakePod.named("web-" + i)
        .label("app", "web")
        .cpu("100m")
        .podAntiAffinity("kubernetes.io/hostname", "app", "web")
        .obj();
  }

  @Test
  void replicasWithHostnameAntiAffinity_spreadOneNodeEach_andTheExtraOneWaitsForANewNode() {
    try (InMemoryCluster c = InMemoryCluster.builder(BuiltInPlugins.registry()).build()) {
      for (int i = 1; i <= 3; i++) {
        c.addNode(MakeNode.named("n" + i).capacity("8", "16Gi", 110).obj());
      }
      for (int i = 0; i < 3; i++) {
        c.addPod(replica(i));
      }
      assertThat(c.drain().bound()).isEqualTo(3);
      Set<String> nodes = new HashSet<>();
      for (int i = 0; i < 3; i++) {
        nodes.add(c.outcome("default", "web-" + i).orElseThrow().node());
      }
      assertThat(nodes).containsExactlyInAnyOrder("n1", "n2", "n3");

      c.addPod(replica(3));
      c.drain();
      PodOutcome pending = c.outcome("default", "web-3").orElseThrow();
      assertThat(pending.isBound()).isFalse();
      assertThat(pending.message())
          .isEqualTo(
              "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption:"
                  + " 0/3 nodes are available: 3 No preemption victims found for incoming pod..");
      assertThat(c.scheduler().queue().unschedulableSize()).isEqualTo(1);

      // The node add passes the plugin's hint: the pod is retried at once, without a flush.
      c.addNode(MakeNode.named("n4").capacity("8", "16Gi", 110).obj());
      c.drain();
      assertThat(c.outcome("default", "web-3").orElseThrow().node()).isEqualTo("n4");
    }
  }

  @Test
  void deletingTheBlockingReplica_requeuesThePendingOne() {
    try (InMemoryCluster c = InMemoryCluster.builder(BuiltInPlugins.registry()).build()) {
      c.addNode(MakeNode.named("n1").capacity("8", "16Gi", 110).obj());
      c.addPod(replica(0));
      c.addPod(replica(1));
      c.drain();
      String bound = c.outcome("default", "web-0").orElseThrow().isBound() ? "web-0" : "web-1";
      String waiting = bound.equals("web-0") ? "web-1" : "web-0";
      assertThat(c.outcome("default", waiting).orElseThrow().isBound()).isFalse();
      c.deletePod("default", bound);
      c.drain();
      assertThat(c.outcome("default", waiting).orElseThrow().node()).isEqualTo("n1");
    }
  }

  @Test
  void requiredAffinityByZone_followsTheMatchingPod_andPreferredAntiAffinitySteersAway() {
    try (InMemoryCluster c = InMemoryCluster.builder(BuiltInPlugins.registry()).build()) {
      String zone = "topology.kubernetes.io/zone";
      c.addNode(MakeNode.named("a1").label(zone, "a").capacity("8", "16Gi", 110).obj());
      c.addNode(MakeNode.named("b1").label(zone, "b").capacity("8", "16Gi", 110).obj());
      c.addNode(MakeNode.named("b2").label(zone, "b").capacity("8", "16Gi", 110).obj());
      c.addPod(MakePod.named("db").label("app", "db").nodeName("b1").obj());
      c.addPod(MakePod.named("client").podAffinity(zone, "app", "db").obj());
      c.addPod(
          MakePod.named("loner")
              .cpu("100m")
              .preferredPodAntiAffinity(100, zone, "app", "db")
              .obj());
      c.drain();
      assertThat(c.outcome("default", "client").orElseThrow().node()).isIn("b1", "b2");
      assertThat(c.outcome("default", "loner").orElseThrow().node()).isEqualTo("a1");
    }
  }
}
