package io.hami.framework.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Preemption end to end on the in-memory cluster: DefaultPreemption evicts lower-priority pods, the
 * preemptor is nominated, the room is held for it against less important pods, and it binds once
 * its victims are gone.
 */
class PreemptionClusterTest {

  private static Pod low(String name) {
    return MakePod.named(name).priority(0).cpu("2").obj();
  }

  private static Pod pod(InMemoryCluster c, String name) {
    return c.pod("default", name).orElseThrow();
  }

  private static boolean disruptionTarget(Pod p) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition cond : p.getStatus().getConditions()) {
      if ("DisruptionTarget".equals(cond.getType())
          && "True".equals(cond.getStatus())
          && "PreemptionByScheduler".equals(cond.getReason())) {
        return true;
      }
    }
    return false;
  }

  /** Whether the pod was bound or has a PodScheduled condition (an attempt failed). */
  private static boolean attempted(Pod p) {
    return p.getSpec().getNodeName() != null
        || (p.getStatus().getConditions() != null
            && p.getStatus().getConditions().stream()
                .anyMatch(cond -> "PodScheduled".equals(cond.getType())));
  }

  @Test
  void highPriorityPodPreemptsIsNominatedAndBindsAfterVictimsTerminate() {
    try (InMemoryCluster c =
        InMemoryCluster.builder(BuiltInPlugins.registry())
            .terminationDelay(Duration.ofSeconds(30))
            .build()) {
      c.addNode(MakeNode.named("n1").capacity("4", "16Gi", 110).obj());
      c.addPod(low("low1"));
      c.addPod(low("low2"));
      assertThat(c.drain().bound()).isEqualTo(2);

      c.addPod(MakePod.named("high").priority(100).cpu("4").obj());
      c.drain();

      Pod high = pod(c, "high");
      assertThat(high.getSpec().getNodeName()).isNull();
      assertThat(high.getStatus().getNominatedNodeName()).isEqualTo("n1");
      assertThat(c.scheduler().nominator().nominatedNode(high.getMetadata().getUid()))
          .isEqualTo("n1");
      for (String v : new String[] {"low1", "low2"}) {
        Pod victim = pod(c, v);
        assertThat(victim.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(disruptionTarget(victim)).isTrue();
      }
      assertThat(c.events())
          .filteredOn(e -> e.reason().equals("Preempted"))
          .extracting(InMemoryCluster.RecordedEvent::note)
          .containsExactly(
              "Preempted by pod " + high.getMetadata().getUid() + " on node n1",
              "Preempted by pod " + high.getMetadata().getUid() + " on node n1");

      // A pod arriving while the victims terminate does not get their room.
      c.addPod(MakePod.named("late").priority(0).cpu("1").obj());
      c.advance(Duration.ofSeconds(31));

      assertThat(c.pod("default", "low1")).isEmpty();
      assertThat(c.pod("default", "low2")).isEmpty();
      assertThat(pod(c, "high").getSpec().getNodeName()).isEqualTo("n1");
      assertThat(pod(c, "late").getSpec().getNodeName()).isNull();
      assertThat(c.scheduler().nominator().size()).isZero();
    }
  }

  @Test
  void lowerPriorityPodDoesNotTakeTheRoomHeldForANominatedPod() {
    try (InMemoryCluster c = InMemoryCluster.builder(BuiltInPlugins.registry()).build()) {
      c.addNode(MakeNode.named("n1").capacity("4", "16Gi", 110).obj());
      c.addPod(low("low1"));
      c.addPod(low("low2"));
      c.drain();

      // One attempt: high preempts one victim (removed at once) and is nominated, not bound.
      c.addPod(MakePod.named("high").priority(100).cpu("2").obj());
      assertThat(c.scheduler().scheduleNext()).isTrue();
      Pod high = pod(c, "high");
      assertThat(high.getSpec().getNodeName()).isNull();
      assertThat(high.getStatus().getNominatedNodeName()).isEqualTo("n1");
      assertThat(c.pods()).extracting(p -> p.getMetadata().getName()).hasSize(2);

      // The freed 2 CPUs are held for high: a less important pod does not fit meanwhile.
      c.addPod(MakePod.named("late").priority(0).cpu("2").obj());
      for (int i = 0; i < 10 && !attempted(pod(c, "late")); i++) {
        c.scheduler().scheduleNext();
      }
      assertThat(pod(c, "late").getSpec().getNodeName()).isNull();
      c.drain();
      assertThat(pod(c, "high").getSpec().getNodeName()).isEqualTo("n1");
      assertThat(pod(c, "late").getSpec().getNodeName()).isNull();
      assertThat(pod(c, "late").getStatus().getNominatedNodeName()).isNull();
    }
  }

  @Test
  void preemptionPolicyNeverWaits() {
    try (InMemoryCluster c = InMemoryCluster.builder(BuiltInPlugins.registry()).build()) {
      c.addNode(MakeNode.named("n1").capacity("2", "16Gi", 110).obj());
      c.addPod(low("low1"));
      c.drain();
      Pod high = MakePod.named("high").priority(100).cpu("2").obj();
      high.getSpec().setPreemptionPolicy("Never");
      c.addPod(high);
      c.drain();
      assertThat(pod(c, "low1").getMetadata().getDeletionTimestamp()).isNull();
      assertThat(c.outcome("default", "high").orElseThrow().message())
          .isEqualTo(
              "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to"
                  + " preemptionPolicy=Never..");
    }
  }
}
