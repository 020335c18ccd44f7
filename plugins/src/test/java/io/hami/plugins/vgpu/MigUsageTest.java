package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.MigFitTest.P2G10;
import static io.hami.plugins.vgpu.MigFitTest.P3G20;
import static io.hami.plugins.vgpu.MigFitTest.at;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.model.Annotations;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Protocol §8.3: MIG instances held by pods occupy their placements in the scheduler's accounting.
 */
final class MigUsageTest {

  static DevicePick mig(String id, MigProfile p, MigPlacement placement) {
    return new DevicePick(
        id, "NVIDIA", p.memoryMB(), p.core(), new DevicePick.Mig(p.name(), placement));
  }

  static Placement placement(List<List<DevicePick>> containers) {
    ImmutableList<ImmutableList<DevicePick>> c =
        containers.stream().map(ImmutableList::copyOf).collect(ImmutableList.toImmutableList());
    return new Placement("n1", c, PodUsage.collapse(c, 0, false), null);
  }

  static Pod pod(String uid, Map<String, String> annos) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(uid)
        .withUid(uid)
        .withNamespace("ns")
        .addToAnnotations(annos)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c0")
        .endContainer()
        .addNewContainer()
        .withName("c1")
        .endContainer()
        .endSpec()
        .build();
  }

  record Case(
      String name, List<List<DevicePick>> containers, Map<String, List<MigPlacement>> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "one instance",
            List.of(List.of(mig("g0", P2G10, at(2, 2)))),
            Map.of("g0", List.of(at(2, 2)))),
        new Case(
            "two instances on one GPU",
            List.of(List.of(mig("g0", P2G10, at(0, 2)), mig("g0", P2G10, at(2, 2)))),
            Map.of("g0", List.of(at(0, 2), at(2, 2)))),
        new Case(
            "two containers on two GPUs",
            List.of(List.of(mig("g0", P3G20, at(0, 4))), List.of(mig("g1", P2G10, at(4, 2)))),
            Map.of("g0", List.of(at(0, 4)), "g1", List.of(at(4, 2)))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void annotationsReadBack(Case c) {
    Placement p = placement(c.containers());
    Map<String, String> annos = BindingAnnotations.of(p, 1_705_054_796L);
    DeviceUsageIndex.Held held = ModelReaders.readPod(pod("p1", annos), GpuVendors.accounted());
    assertThat(held).isNotNull();
    Map<String, List<MigPlacement>> got = new HashMap<>();
    held.usage().byDevice().forEach((id, u) -> got.put(id, u.mig()));
    assertThat(got).isEqualTo(c.want());
    // The reservation made at Reserve and the annotations read back count the same.
    assertThat(held.usage()).isEqualTo(p.usage());
  }

  @Test
  void unreadableMigAllocationsWarnAndKeepDeviceUsage() {
    Placement p = placement(List.of(List.of(mig("g0", P2G10, at(2, 2)))));
    Map<String, String> annos = new HashMap<>(BindingAnnotations.of(p, 1_705_054_796L));
    annos.put(Annotations.VGPU_MIG_ALLOCATIONS, "[{\"gpuUUID\":7}]");
    List<String> warned = new ArrayList<>();
    DeviceUsageIndex.Held held =
        ModelReaders.readPod(
            pod("p1", annos), GpuVendors.accounted(), (pod, key, value, error) -> warned.add(key));
    assertThat(warned).containsExactly(Annotations.VGPU_MIG_ALLOCATIONS);
    assertThat(held).isNotNull();
    assertThat(held.usage().byDevice().get("g0").memMiB()).isEqualTo(P2G10.memoryMB());
    assertThat(held.usage().byDevice().get("g0").mig()).isEmpty();
  }

  final Map<String, DeviceUsageIndex.Held> held = new HashMap<>();
  final DeviceUsageIndex index =
      new DeviceUsageIndex(
          node ->
              new DeviceUsageIndex.Registered(
                  ImmutableList.of(
                      MigFitTest.a100("g0").build(),
                      MigFitTest.a100("g1").index(1).build(),
                      Dev.dev("s0").index(2).mem(40960).build()),
                  PairScores.NONE,
                  null),
          pod -> held.get(pod.getMetadata().getUid()),
          (node, r) -> {});

  static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  @Test
  void indexOccupiesPlacementsOfHeldAndAssumedPods() {
    index.upsertNode(node("n1"));
    Placement first = placement(List.of(List.of(mig("g0", P2G10, at(0, 2)))));
    held.put("p1", new DeviceUsageIndex.Held("n1", first.usage()));
    index.upsertPod(pod("p1", Map.of()));
    // An assumed pod, reserved before its annotations exist.
    index.reserve("p2", "n1", placement(List.of(List.of(mig("g0", P2G10, at(2, 2))))).usage());
    assertThat(index.node("n1").device("g0").migUsed())
        .containsExactlyInAnyOrder(at(0, 2), at(2, 2));

    // The next 2g.10gb instance on g0 goes to the third placement.
    DeviceUsage g0 = index.node("n1").device("g0");
    assertThat(DeviceFitter.migChoice(g0, 9000)).isEqualTo(new DevicePick.Mig("2g.10gb", at(4, 2)));

    index.unreserve("p2");
    index.deletePod(pod("p1", Map.of()));
    assertThat(index.node("n1").device("g0").migUsed()).isEmpty();
    assertThat(index.node("n1").device("g0").usedSlots()).isZero();
  }

  @Test
  void migInstanceOnHamiCoreDeviceMarksItUnhealthy() {
    index.upsertNode(node("n1"));
    assertThat(index.node("n1").device("s0").healthy()).isTrue();
    index.reserve("p1", "n1", placement(List.of(List.of(mig("s0", P2G10, at(0, 2))))).usage());
    assertThat(index.node("n1").device("s0").healthy()).isFalse();
    assertThat(index.node("n1").device("g0").healthy()).isTrue();
    index.unreserve("p1");
    assertThat(index.node("n1").device("s0").healthy()).isTrue();
  }

  /**
   * @param name the case
   * @param pods each pod's placement on n1 by UID; the first is held (annotations), the rest
   *     reserved
   * @param without the pod whose usage {@link DeviceUsageIndex#countedWithout} leaves out
   */
  record Without(String name, Map<String, List<List<DevicePick>>> pods, String without) {
    @Override
    public String toString() {
      return name;
    }
  }

  static DevicePick shared(String id, int mem) {
    return new DevicePick(id, "NVIDIA", mem, 10, null);
  }

  static Stream<Without> withoutCases() {
    return Stream.of(
        new Without(
            "one of two MIG instances on a GPU",
            Map.of(
                "p1", List.of(List.of(mig("g0", P2G10, at(0, 2)))),
                "p2", List.of(List.of(mig("g0", P2G10, at(2, 2))))),
            "p2"),
        new Without(
            "the held pod of two",
            Map.of(
                "p1", List.of(List.of(mig("g0", P2G10, at(0, 2)), shared("s0", 1000))),
                "p2", List.of(List.of(shared("s0", 2000)))),
            "p1"),
        new Without(
            "a MIG instance on a hami-core device, which marked it unhealthy",
            Map.of(
                "p1", List.of(List.of(shared("s0", 1000))),
                "p2", List.of(List.of(mig("s0", P2G10, at(0, 2))))),
            "p2"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("withoutCases")
  void countedWithout_isTheViewTheNodeHasOnceThePodIsReleased(Without c) {
    index.upsertNode(node("n1"));
    c.pods()
        .forEach(
            (uid, containers) -> {
              PodUsage u = placement(containers).usage();
              if (uid.equals("p1")) {
                held.put(uid, new DeviceUsageIndex.Held("n1", u));
                index.upsertPod(pod(uid, Map.of()));
              } else {
                index.reserve(uid, "n1", u);
              }
            });
    NodeDevices before = index.node("n1");
    CountedWithout w = index.countedWithout(c.without());
    assertThat(w).isNotNull();
    assertThat(w.node()).isEqualTo("n1");
    assertThat(index.node("n1")).isSameAs(before);

    index.release(c.without());
    assertThat(w.nodeWithout().devices()).isEqualTo(index.node("n1").devices());
    assertThat(index.countedWithout(c.without())).isNull();
  }
}
