package io.hami.framework.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InMemoryClusterTest {

  private static InMemoryCluster cluster(Long seed) {
    return InMemoryCluster.builder(BuiltInPlugins.registry()).seed(seed).build();
  }

  @Test
  void drain_bindsPodsThatFit() {
    try (InMemoryCluster c = cluster(null)) {
      c.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
      c.addNode(MakeNode.named("n2").capacity("4", "8Gi", 110).obj());
      for (int i = 0; i < 6; i++) {
        c.addPod(MakePod.named("p" + i).cpu("1").memory("1Gi").obj());
      }
      InMemoryCluster.DrainResult r = c.drain();
      assertThat(r.bound()).isEqualTo(6);
      assertThat(c.pendingCount()).isZero();
      // LeastAllocated spreads the pods evenly.
      Map<String, Integer> perNode = new LinkedHashMap<>();
      c.outcomes().values().forEach(o -> perNode.merge(o.node(), 1, Integer::sum));
      assertThat(perNode).containsEntry("n1", 3).containsEntry("n2", 3);
    }
  }

  @Test
  void unschedulablePod_getsAggregatedConditionAndOneEvent() {
    try (InMemoryCluster c = cluster(null)) {
      c.addNode(MakeNode.named("n1").capacity("1", "1Gi", 110).obj());
      c.addNode(MakeNode.named("n2").capacity("8", "8Gi", 110).unschedulable(true).obj());
      c.addPod(MakePod.named("big").cpu("2").obj());
      c.drain();
      PodOutcome o = c.outcome("default", "big").orElseThrow();
      assertThat(o.isBound()).isFalse();
      assertThat(o.message())
          .isEqualTo(
              "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. preemption:"
                  + " 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1"
                  + " Preemption is not helpful for scheduling..");
      var pod = c.pod("default", "big").orElseThrow();
      assertThat(pod.getStatus().getConditions())
          .anySatisfy(
              cond -> {
                assertThat(cond.getType()).isEqualTo("PodScheduled");
                assertThat(cond.getStatus()).isEqualTo("False");
                assertThat(cond.getMessage()).isEqualTo(o.message());
              });
      // A flush retries it with the same result: no second Event.
      c.advance(Duration.ofMinutes(6));
      assertThat(c.outcome("default", "big").orElseThrow().attempts()).isGreaterThan(1);
      assertThat(c.events()).filteredOn(e -> e.reason().equals("FailedScheduling")).hasSize(1);
    }
  }

  @Test
  void boundAndPendingCounts_followBindsUpdatesAndDeletes() {
    try (InMemoryCluster c = cluster(null)) {
      c.addNode(MakeNode.named("n1").capacity("2", "8Gi", 110).obj());
      c.addPod(MakePod.named("a").cpu("1").obj());
      c.addPod(MakePod.named("b").cpu("1").obj());
      c.addPod(MakePod.named("big").cpu("4").obj());
      assertThat(c.boundCount()).isZero();
      assertThat(c.drain().bound()).isEqualTo(2);
      assertThat(c.boundCount()).isEqualTo(2);
      // A failed attempt writes a condition, which must not count as a bind.
      assertThat(c.pendingCount()).isEqualTo(1);
      c.updatePod(c.pod("default", "a").orElseThrow());
      assertThat(c.boundCount()).isEqualTo(2);
      c.deletePod("default", "a");
      c.deletePod("default", "big");
      assertThat(c.boundCount()).isEqualTo(1);
      assertThat(c.pendingCount()).isZero();
    }
  }

  @Test
  void nodeAddedLater_requeuesPendingPodWithoutFlush() {
    try (InMemoryCluster c = cluster(null)) {
      c.addNode(MakeNode.named("small").capacity("1", "1Gi", 110).obj());
      c.addPod(MakePod.named("p").cpu("2").obj());
      c.drain();
      assertThat(c.scheduler().queue().unschedulableSize()).isEqualTo(1);
      c.addNode(MakeNode.named("big").capacity("8", "8Gi", 110).obj());
      c.drain();
      assertThat(c.outcome("default", "p").orElseThrow().node()).isEqualTo("big");
    }
  }

  @Test
  void gatedPod_waitsWithSchedulingGatedCondition_andIsBoundRightAfterItsLastGateGoes() {
    try (InMemoryCluster c = cluster(null)) {
      c.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
      c.addPod(MakePod.named("p").cpu("1").schedulingGates("example.com/quota", "b").obj());
      c.drain();
      assertThat(c.pendingCount()).isEqualTo(1);
      assertThat(c.outcome("default", "p")).isEmpty();
      assertThat(c.scheduler().queue().unschedulableSize()).isEqualTo(1);
      assertThat(c.pod("default", "p").orElseThrow().getStatus().getConditions())
          .singleElement()
          .satisfies(
              cond -> {
                assertThat(cond.getType()).isEqualTo("PodScheduled");
                assertThat(cond.getStatus()).isEqualTo("False");
                assertThat(cond.getReason()).isEqualTo("SchedulingGated");
                assertThat(cond.getMessage()).isEqualTo(InMemoryCluster.SCHEDULING_GATED_MESSAGE);
              });

      c.updatePod(MakePod.named("p").cpu("1").schedulingGates("b").obj());
      c.drain();
      assertThat(c.pendingCount()).isEqualTo(1);

      // No clock movement, no flush: the update alone lets the pod in.
      c.updatePod(MakePod.named("p").cpu("1").obj());
      InMemoryCluster.DrainResult r = c.drain();
      assertThat(r.bound()).isEqualTo(1);
      assertThat(r.simulatedTime()).isZero();
      assertThat(c.outcome("default", "p").orElseThrow().node()).isEqualTo("n1");
    }
  }

  @Test
  void podWithResourceClaims_isRefusedNamingTheField() {
    try (InMemoryCluster c = cluster(null)) {
      c.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
      c.addNode(MakeNode.named("n2").capacity("4", "8Gi", 110).obj());
      c.addPod(MakePod.named("dra").resourceClaim("gpu", "gpu-claim").obj());
      c.drain();
      // PostFilter runs after a PreFilter rejection too, as in kube-scheduler.
      String want =
          "0/2 nodes are available: spec.resourceClaims is not supported by this scheduler"
              + " (DynamicResources). preemption: 0/2 nodes are available: 2 Preemption is not"
              + " helpful for scheduling..";
      assertThat(c.outcome("default", "dra").orElseThrow().message()).isEqualTo(want);
      assertThat(c.pod("default", "dra").orElseThrow().getStatus().getConditions())
          .anySatisfy(cond -> assertThat(cond.getMessage()).isEqualTo(want));
      assertThat(c.events())
          .filteredOn(e -> e.reason().equals("FailedScheduling"))
          .singleElement()
          .satisfies(e -> assertThat(e.note()).contains("spec.resourceClaims"));
      assertThat(c.scheduler().queue().unschedulableSize()).isEqualTo(1);
    }
  }

  @Test
  void sameInputsAndSeed_giveSamePlacements() {
    Map<String, String> first = run(42L);
    Map<String, String> second = run(42L);
    assertThat(first).isEqualTo(second).hasSize(40);
  }

  private static Map<String, String> run(long seed) {
    try (InMemoryCluster c = cluster(seed)) {
      for (int i = 0; i < 8; i++) {
        c.addNode(MakeNode.named("n" + i).capacity("16", "64Gi", 110).obj());
      }
      for (int i = 0; i < 40; i++) {
        c.addPod(MakePod.named("p" + i).cpu("100m").memory("128Mi").obj());
      }
      c.drain();
      Map<String, String> out = new LinkedHashMap<>();
      c.outcomes().forEach((k, v) -> out.put(k, v.node()));
      return out;
    }
  }
}
