package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.PodSchedulingGroup;
import io.hami.framework.api.PodGroup;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.local.PodOutcome;
import io.hami.framework.plugins.helper.PodGroups;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeBoundPod;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Gang scheduling of whole-GPU pods with the shipped profile, on an in-memory cluster. */
final class GangSchedulingIT {

  private static Pod member(String name, String group) {
    Pod p = MakeGpuPod.named(name).gpus(1).obj();
    p.getSpec().setSchedulingGroup(new PodSchedulingGroup(group));
    return p;
  }

  private static List<String> gang(InMemoryCluster c, String group, int size) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String name = group + i;
      c.addPod(member(name, group));
      names.add(name);
    }
    return names;
  }

  private static long bound(InMemoryCluster c, List<String> names) {
    return names.stream()
        .filter(n -> c.outcome("default", n).map(PodOutcome::isBound).orElse(false))
        .count();
  }

  /** No member is reserved (assumed) or waiting: the group holds no GPU. */
  private static void assertHoldsNothing(InMemoryCluster c, List<String> names) {
    for (String n : names) {
      Pod p = c.pod("default", n).orElseThrow();
      assertThat(p.getSpec().getNodeName()).as("%s bound", n).isNull();
      assertThat(c.scheduler().cache().isAssumed(p.getMetadata().getUid()))
          .as("%s reserved", n)
          .isFalse();
    }
  }

  @Test
  void gangOfFour_withThreeFreeGpus_holdsNothing_thenBindsAllOnceAFourthFrees() {
    try (InMemoryCluster c = GpuSchedulingTest.cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 4)).obj());
      // A running pod on GPU 0, annotated as the scheduler and node agent leave it.
      c.addPod(
          MakeBoundPod.bound("busy", "n1", FakeGpus.uuid("n1", 0) + ",NVIDIA,15360,100:;")
              .container("c", 1)
              .phase("Running")
              .build());

      c.putObject(PodGroup.gang("default", "g", 4));
      List<String> g = gang(c, "g", 4);
      c.drain();
      assertThat(bound(c, g)).isZero();
      assertHoldsNothing(c, g);
      // What the group does not hold, another pod can have: three GPUs are free.
      c.addPod(MakeGpuPod.named("probe").gpus(3).obj());
      c.drain();
      assertThat(c.outcome("default", "probe").orElseThrow().isBound()).isTrue();
      c.deletePod("default", "probe");
      c.drain();
      assertThat(bound(c, g)).isZero();
      assertHoldsNothing(c, g);

      // A fourth GPU frees: every member binds at once, whatever backoff their earlier attempts
      // left: the event moves them to the backoff queue, which an idle queue pops.
      c.deletePod("default", "busy");
      InMemoryCluster.DrainResult r = c.drain(0);
      assertThat(bound(c, g)).isEqualTo(4);
      assertThat(r.simulatedTime()).isZero();
    }
  }

  @Test
  void twoGangsCompeting_forRoomForOne_oneBindsFully_theOtherHoldsNothing() {
    try (InMemoryCluster c = GpuSchedulingTest.cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 4)).obj());
      c.putObject(PodGroup.gang("default", "a", 4));
      c.putObject(PodGroup.gang("default", "b", 4));
      List<String> a = new ArrayList<>();
      List<String> b = new ArrayList<>();
      // Interleaved arrival: the queue order still keeps each gang together.
      for (int i = 0; i < 4; i++) {
        c.addPod(member("a" + i, "a"));
        a.add("a" + i);
        c.addPod(member("b" + i, "b"));
        b.add("b" + i);
      }
      c.drain();
      assertThat(bound(c, a)).isEqualTo(4);
      assertThat(bound(c, b)).isZero();
      assertHoldsNothing(c, b);

      // Room for the second gang appears.
      c.addNode(MakeGpuNode.named("n2").gpus(FakeGpus.t4s("n2", 4)).obj());
      c.advance(Duration.ofSeconds(1));
      assertThat(bound(c, b)).isEqualTo(4);
    }
  }

  @Test
  void membersWaitForTheirPodGroup_thenBindTogether() {
    try (InMemoryCluster c = GpuSchedulingTest.cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj());
      List<String> g = gang(c, "g", 2);
      c.drain();
      assertThat(bound(c, g)).isZero();
      c.putObject(PodGroup.gang("default", "g", 2));
      c.drain();
      assertThat(bound(c, g)).isEqualTo(2);
    }
  }

  @Test
  void annotationFallback_bindsTheGroupWhenItFits() {
    try (InMemoryCluster c = GpuSchedulingTest.cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj());
      List<String> names = List.of("x0", "x1", "x2");
      for (String n : names) {
        c.addPod(
            MakeGpuPod.named(n)
                .gpus(1)
                .annotation(PodGroups.NAME_ANNOTATION, "x")
                .annotation(PodGroups.MIN_AVAILABLE_ANNOTATION, "3")
                .obj());
      }
      c.drain();
      // Three one-GPU members on two GPUs: none binds, none holds a GPU.
      assertThat(bound(c, names)).isZero();
      assertHoldsNothing(c, names);
      c.addNode(MakeGpuNode.named("n2").gpus(FakeGpus.t4s("n2", 1)).obj());
      c.drain();
      assertThat(bound(c, names)).isEqualTo(3);
    }
  }

  @Test
  void malformedAnnotation_leavesThePodPendingWithAMessageAndAnEvent() {
    try (InMemoryCluster c = GpuSchedulingTest.cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj());
      c.addPod(
          MakeGpuPod.named("bad")
              .gpus(1)
              .annotation(PodGroups.NAME_ANNOTATION, "x")
              .annotation(PodGroups.MIN_AVAILABLE_ANNOTATION, "two")
              .obj());
      c.drain();
      PodOutcome o = c.outcome("default", "bad").orElseThrow();
      assertThat(o.isBound()).isFalse();
      assertThat(o.message())
          .contains("annotation pod-group.scheduling.hami.io/min-available=\"two\"");
      assertThat(c.events())
          .anySatisfy(
              e -> {
                assertThat(e.reason()).isEqualTo("FailedScheduling");
                assertThat(e.note()).contains("min-available=\"two\"");
              });
    }
  }

  @Test
  void podSettingBothForms_isRefusedNamingBoth() {
    try (InMemoryCluster c = GpuSchedulingTest.cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj());
      c.putObject(PodGroup.gang("default", "g", 1));
      Pod p = member("both", "g");
      p.getMetadata()
          .setAnnotations(
              new java.util.HashMap<>(
                  p.getMetadata().getAnnotations() == null
                      ? java.util.Map.of()
                      : p.getMetadata().getAnnotations()));
      p.getMetadata().getAnnotations().put(PodGroups.NAME_ANNOTATION, "g");
      c.addPod(p);
      c.drain();
      assertThat(c.outcome("default", "both").orElseThrow().message())
          .contains("spec.schedulingGroup")
          .contains(PodGroups.NAME_ANNOTATION);
    }
  }

  @Test
  void gangWhosePermitWaitRunsOut_givesItsGpusBackAsAUnit_andIsPlacedWhenComplete() {
    try (InMemoryCluster c = GpuSchedulingTest.cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 3)).obj());
      c.putObject(PodGroup.gang("default", "g", 3));
      // Two members can be placed; the third is held back by a scheduling gate.
      Pod held = member("g2", "g");
      held.getSpec().setSchedulingGates(List.of(new PodSchedulingGate("hold")));
      c.addPod(member("g0", "g"));
      c.addPod(member("g1", "g"));
      c.addPod(held);
      List<String> g = List.of("g0", "g1", "g2");
      c.drain();
      assertThat(c.scheduler().queue().inFlightSize()).as("members waiting at Permit").isEqualTo(2);

      // The wait (permitWaitingTimeSeconds, 300 s) runs out: both members give their GPUs back,
      // and do not take them again while the gang cannot be complete.
      c.advance(Duration.ofSeconds(301));
      assertThat(bound(c, g)).isZero();
      assertHoldsNothing(c, g);
      assertThat(c.scheduler().queue().inFlightSize()).isZero();
      c.advance(Duration.ofSeconds(30));
      assertHoldsNothing(c, g);

      // A pod outside the gang takes the released GPUs.
      c.addPod(MakeGpuPod.named("probe").gpus(3).obj());
      c.drain();
      assertThat(c.outcome("default", "probe").orElseThrow().isBound()).isTrue();
      c.deletePod("default", "probe");
      c.drain();
      assertHoldsNothing(c, g);

      // The gate goes: the gang is complete and is placed whole.
      c.updatePod(
          new PodBuilder(c.pod("default", "g2").orElseThrow())
              .editSpec()
              .withSchedulingGates(List.of())
              .endSpec()
              .build());
      c.drain();
      assertThat(bound(c, g)).isEqualTo(3);
    }
  }
}
