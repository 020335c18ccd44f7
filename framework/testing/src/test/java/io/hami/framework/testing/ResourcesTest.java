package io.hami.framework.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.Resources;
import io.hami.framework.api.Status;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The SPI's value types, exercised through the fixtures. */
class ResourcesTest {

  record Case(String name, Pod pod, long wantMilliCpu, long wantMemory) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> requests() {
    return Stream.of(
        new Case("no requests", MakePod.named("p").obj(), 0, 0),
        new Case(
            "sum of containers",
            MakePod.named("p")
                .container("a")
                .cpu("250m")
                .memory("1Gi")
                .container("b")
                .cpu("750m")
                .obj(),
            1000,
            1L << 30),
        new Case(
            "limit stands in for a missing request",
            MakePod.named("p").limit("cpu", "2").obj(),
            2000,
            0),
        new Case(
            "init container larger than app",
            MakePod.named("p").initContainer("i", false).cpu("3").container("a").cpu("1").obj(),
            3000,
            0),
        new Case(
            "init containers run one at a time",
            MakePod.named("p")
                .initContainer("i1", false)
                .cpu("2")
                .initContainer("i2", false)
                .cpu("2")
                .container("a")
                .cpu("1")
                .obj(),
            2000,
            0),
        new Case(
            "sidecar runs beside app containers",
            MakePod.named("p").initContainer("s", true).cpu("1").container("a").cpu("1").obj(),
            2000,
            0),
        new Case(
            "init after sidecar includes the sidecar",
            MakePod.named("p")
                .initContainer("s", true)
                .cpu("1")
                .initContainer("i", false)
                .cpu("3")
                .container("a")
                .cpu("1")
                .obj(),
            4000,
            0),
        new Case(
            "overhead is added",
            MakePod.named("p").cpu("1").overhead("cpu", "250m").overhead("memory", "64Mi").obj(),
            1250,
            64L << 20),
        new Case("fractional cpu rounds up", MakePod.named("p").cpu("0.0001").obj(), 1, 0),
        new Case(
            "pod-level request replaces the containers' sum, overhead still added",
            MakePod.named("p")
                .container("a")
                .cpu("1")
                .memory("1Gi")
                .container("b")
                .cpu("1")
                .podRequest("cpu", "3")
                .overhead("cpu", "100m")
                .obj(),
            3100,
            1L << 30),
        new Case(
            "pod-level memory only leaves cpu to the containers",
            MakePod.named("p").cpu("500m").podRequest("memory", "2Gi").obj(),
            500,
            2L << 30));
  }

  @Test
  void forPod_podLevelLimitStandsInForItsRequest_andOtherPodLevelResourcesAreIgnored() {
    Pod pod = MakePod.named("p").cpu("1").obj();
    pod.getSpec()
        .setResources(
            new ResourceRequirements(
                null,
                Map.of("memory", new Quantity("1Gi"), "nvidia.com/gpu", new Quantity("2")),
                null));
    Resources r = Resources.forPod(pod);
    assertThat(r.memory()).isEqualTo(1L << 30);
    assertThat(r.milliCpu()).isEqualTo(1000);
    assertThat(r.get("nvidia.com/gpu")).isZero();
    // Scoring defaults apply to containers only; the pod-level amount wins.
    assertThat(Resources.nonZeroForPod(pod).memory()).isEqualTo(1L << 30);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requests")
  void forPod(Case c) {
    Resources r = Resources.forPod(c.pod());
    assertThat(r.milliCpu()).isEqualTo(c.wantMilliCpu());
    assertThat(r.memory()).isEqualTo(c.wantMemory());
  }

  @Test
  void get_readsScalarsByNameWhateverTheStringInstance() {
    Resources few =
        Resources.builder()
            .add("cpu", 1500)
            .add("nvidia.com/gpu", 2)
            .add("example.com/fpga", 1)
            .build();
    assertThat(few.get(new String("nvidia.com/gpu"))).isEqualTo(2);
    assertThat(few.get("example.com/fpga")).isEqualTo(1);
    assertThat(few.get("cpu")).isEqualTo(1500);
    assertThat(few.get("example.com/none")).isZero();
    Resources.Builder b = Resources.builder();
    for (int i = 0; i < 12; i++) {
      b.add("example.com/r" + i, i + 1);
    }
    Resources many = b.build();
    assertThat(many.get("example.com/r" + 11)).isEqualTo(12);
    assertThat(many.get("example.com/r0")).isEqualTo(1);
    assertThat(many.get("example.com/none")).isZero();
  }

  @Test
  void nonZero_countsDefaultsForBestEffortContainers() {
    Resources r =
        Resources.nonZeroForPod(MakePod.named("p").container("a").container("b").cpu("1").obj());
    assertThat(r.milliCpu()).isEqualTo(1100);
    assertThat(r.memory()).isEqualTo(2 * Resources.DEFAULT_MEMORY_REQUEST);
  }

  @Test
  void badQuantity_namesContainerAndResource() {
    Pod p = MakePod.named("p").container("main").obj();
    p.getSpec().getContainers().get(0).setResources(new ResourceRequirements());
    p.getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .setRequests(Map.of("cpu", new Quantity("lots")));
    assertThatThrownBy(() -> Resources.forPod(p))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("container main")
        .hasMessageContaining("cpu");
  }

  @Test
  void nodeInfo_isAValueThatTracksRequestsPortsAndPods() {
    NodeInfo empty = NodeInfo.of(MakeNode.named("n").capacity("4", "8Gi", 110).obj());
    PodInfo a = PodInfo.of(MakePod.named("a").cpu("1").hostPort(80).obj());
    NodeInfo one = empty.withPod(a);
    assertThat(empty.pods()).isEmpty();
    assertThat(one.requested().milliCpu()).isEqualTo(1000);
    assertThat(one.usedPorts()).hasSize(1);
    assertThat(one.withPod(a).pods()).hasSize(1);
    NodeInfo none = one.withoutPod(a.uid());
    assertThat(none.requested().milliCpu()).isZero();
    assertThat(none.usedPorts()).isEmpty();
    assertThat(one.allocatable().pods()).isEqualTo(110);
  }

  @Test
  void status_carriesCodeReasonsAndPlugin() {
    Status s = Status.unschedulable("Insufficient cpu").withPlugin("Fit");
    assertThat(s.isRejected()).isTrue();
    assertThat(s.toString()).isEqualTo("UNSCHEDULABLE[Fit]: Insufficient cpu");
    assertThat(Status.success().withPlugin("X")).isSameAs(Status.success());
    assertThat(Status.error(new IllegalStateException("x")).code().triggersBackoff()).isTrue();
  }
}
