package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.Dev.dev;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class NodePlacerTest {

  static final NodePlacer placer = NodePlacer.standard();

  static VendorRequest nv(int nums, int mem, int cores) {
    return new VendorRequest("NVIDIA", nums, mem, VendorRequest.PERCENT_UNSET, cores);
  }

  static NodeDevices fourGpus() {
    return NodeDevices.of(
        "n",
        List.of(
            dev("g0").index(0).count(10).mem(10000).numa(0).build(),
            dev("g1").index(1).count(10).mem(10000).numa(0).build(),
            dev("g2").index(2).count(10).mem(10000).numa(1).build(),
            dev("g3").index(3).count(10).mem(10000).numa(1).build()));
  }

  @Test
  void place_appContainersAccumulate() {
    NodeDevices node = NodeDevices.of("n", List.of(dev("g0").count(10).mem(1000).build()));
    PodRequests reqs = PodRequests.of(List.of(List.of(nv(1, 600, 0)), List.of(nv(1, 600, 0))), 0);
    Placement p = placer.place(node, reqs, PodGpuOptions.DEFAULT, null);
    assertThat(p.fits()).isFalse();
    assertThat(p.reasons().message()).isEqualTo("1/1 CardInsufficientMemory");
    assertThat(placer.feasible(node, reqs, PodGpuOptions.DEFAULT)).isNotNull();
  }

  @Test
  void place_initContainersDoNotAccumulate() {
    NodeDevices node = NodeDevices.of("n", List.of(dev("g0").count(10).mem(1000).build()));
    PodRequests reqs =
        PodRequests.of(
            List.of(List.of(nv(1, 600, 0)), List.of(nv(1, 700, 0)), List.of(nv(1, 900, 0))), 2);
    Placement p = placer.place(node, reqs, PodGpuOptions.DEFAULT, null);
    assertThat(p.fits()).isTrue();
    assertThat(p.usage().byDevice()).containsEntry("g0", new PodUsage.Usage(1, 900, 0, "NVIDIA"));
  }

  @Test
  void place_keepsEmptyEntriesForContainersWithoutDevices() {
    PodRequests reqs = PodRequests.of(List.of(List.of(), List.of(nv(1, 100, 0)), List.of()), 1);
    Placement p = placer.place(fourGpus(), reqs, PodGpuOptions.DEFAULT, null);
    assertThat(p.containers()).hasSize(3);
    assertThat(p.containers().get(0)).isEmpty();
    assertThat(p.containers().get(1)).hasSize(1);
    assertThat(p.containers().get(2)).isEmpty();
  }

  @Test
  void place_spreadTakesIdlestAndBinpackBusiest() {
    NodeDevices node =
        NodeDevices.of(
            "n",
            List.of(
                dev("busy").index(0).count(10).used(3).mem(10000).usedMem(5000).build(),
                dev("idle").index(1).count(10).mem(10000).build()));
    PodRequests one = PodRequests.single(nv(1, 1000, 0));
    assertThat(placer.place(node, one, PodGpuOptions.DEFAULT, null).containers().get(0).get(0).id())
        .isEqualTo("idle");
    assertThat(
            placer
                .place(node, one, PodGpuOptions.DEFAULT.withGpuPolicy(GpuPolicy.BINPACK), null)
                .containers()
                .get(0)
                .get(0)
                .id())
        .isEqualTo("busy");
  }

  @Test
  void place_multiGpuDistinctDevices() {
    Placement p =
        placer.place(fourGpus(), PodRequests.single(nv(3, 1000, 0)), PodGpuOptions.DEFAULT, null);
    assertThat(p.fits()).isTrue();
    assertThat(p.containers().get(0)).extracting(DevicePick::id).doesNotHaveDuplicates().hasSize(3);
  }

  @Test
  void place_tooManyDevicesIsNodeInsufficientDevice() {
    Placement p =
        placer.place(fourGpus(), PodRequests.single(nv(5, 1000, 0)), PodGpuOptions.DEFAULT, null);
    assertThat(p.reasons().codes()).containsExactly("NodeInsufficientDevice");
    assertThat(
            placer
                .feasible(fourGpus(), PodRequests.single(nv(5, 1000, 0)), PodGpuOptions.DEFAULT)
                .codes())
        .containsExactly("NodeInsufficientDevice");
  }

  @Test
  void place_numaBindKeepsOneNumaNode() {
    PodGpuOptions opts = PodGpuOptions.DEFAULT.withNumaBind(true);
    Placement p = placer.place(fourGpus(), PodRequests.single(nv(2, 1000, 0)), opts, null);
    assertThat(p.fits()).isTrue();
    List<DevicePick> picks = p.containers().get(0);
    NodeDevices node = fourGpus();
    assertThat(node.device(picks.get(0).id()).numa())
        .isEqualTo(node.device(picks.get(1).id()).numa());
    assertThat(placer.place(fourGpus(), PodRequests.single(nv(3, 1000, 0)), opts, null).fits())
        .isFalse();
  }

  @Test
  void place_honoursPreferredDevicesWhenTheyFit() {
    DeviceChoice choice = DeviceChoice.of("n", List.of(List.of("g0", "g3")));
    Placement p =
        placer.place(fourGpus(), PodRequests.single(nv(2, 1000, 0)), PodGpuOptions.DEFAULT, choice);
    assertThat(p.containers().get(0)).extracting(DevicePick::id).containsExactly("g0", "g3");
  }

  @Test
  void place_ignoresPreferredDevicesThatDoNotFit() {
    NodeDevices node =
        NodeDevices.of(
            "n",
            List.of(
                dev("g0").index(0).count(10).mem(1000).usedMem(900).build(),
                dev("g1").index(1).count(10).mem(1000).build()));
    DeviceChoice choice = DeviceChoice.of("n", List.of(List.of("g0")));
    Placement p =
        placer.place(node, PodRequests.single(nv(1, 500, 0)), PodGpuOptions.DEFAULT, choice);
    assertThat(p.containers().get(0)).extracting(DevicePick::id).containsExactly("g1");
    DeviceChoice otherNode = DeviceChoice.of("elsewhere", List.of(List.of("g0")));
    assertThat(
            placer
                .place(node, PodRequests.single(nv(1, 500, 0)), PodGpuOptions.DEFAULT, otherNode)
                .containers()
                .get(0))
        .extracting(DevicePick::id)
        .containsExactly("g1");
  }

  @Test
  void feasible_matchesPlaceOnSingleRequests() {
    NodeDevices node =
        NodeDevices.of(
            "n",
            List.of(
                dev("g0").index(0).count(2).used(2).mem(1000).build(),
                dev("g1").index(1).count(10).mem(1000).usedMem(800).build(),
                dev("g2").index(2).count(10).mem(1000).unhealthy().build()));
    PodRequests r = PodRequests.single(nv(1, 500, 0));
    FitReasons f = placer.feasible(node, r, PodGpuOptions.DEFAULT);
    Placement p = placer.place(node, r, PodGpuOptions.DEFAULT, null);
    assertThat(f).isNotNull();
    assertThat(f.message()).isEqualTo(p.reasons().message());
    assertThat(f.message())
        .isEqualTo("1/3 CardInsufficientMemory, 1/3 CardNotHealth, 1/3 CardTimeSlicingExhausted");
  }

  @Test
  void place_invalidNodeOffersNothing() {
    NodeDevices bad = new NodeDevices("n", ImmutableList.of(), PairScores.NONE, "bad json", 1);
    assertThat(
            placer
                .place(bad, PodRequests.single(nv(1, 1, 0)), PodGpuOptions.DEFAULT, null)
                .reasons()
                .codes())
        .containsExactly("NodeAnnotationInvalid");
    assertThat(placer.feasible(bad, PodRequests.single(nv(1, 1, 0)), PodGpuOptions.DEFAULT).codes())
        .containsExactly("NodeAnnotationInvalid");
  }

  @Test
  void place_reasonsAreTheFailingRequestsOnly() {
    // The first container fits on g0 after g1 refuses it; the second fails: HAMi reports the
    // second container's refusals alone, not a sum over the pod.
    NodeDevices node =
        NodeDevices.of(
            "n",
            List.of(
                dev("g0").index(0).count(10).mem(1000).build(),
                dev("g1").index(1).count(10).mem(100).build()));
    PodRequests reqs = PodRequests.of(List.of(List.of(nv(1, 600, 0)), List.of(nv(1, 600, 0))), 0);
    Placement p = placer.place(node, reqs, PodGpuOptions.DEFAULT, null);
    assertThat(p.reasons().message()).isEqualTo("2/2 CardInsufficientMemory");
  }

  @Test
  void place_nodeInsufficientDeviceCarriesNoCount() {
    PodRequests reqs = PodRequests.single(nv(5, 100, 0));
    assertThat(placer.place(fourGpus(), reqs, PodGpuOptions.DEFAULT, null).reasons().message())
        .isEqualTo("NodeInsufficientDevice");
    assertThat(placer.feasible(fourGpus(), reqs, PodGpuOptions.DEFAULT).message())
        .isEqualTo("NodeInsufficientDevice");
  }

  @Test
  void place_tiedDevicesKeepTheOrderTheLastSortLeft() {
    // binpack: g2 and g0 tie (idle); g1 is busier and taken first. The order of the node (g2
    // before g0) decides the tie, not the NVML index, and carries over to the next container.
    NodeDevices node =
        NodeDevices.of(
            "n",
            List.of(
                dev("g2").index(2).count(10).mem(1000).build(),
                dev("g0").index(0).count(10).mem(1000).build(),
                dev("g1").index(1).count(10).used(5).mem(1000).build()));
    PodGpuOptions binpack = PodGpuOptions.DEFAULT.withGpuPolicy(GpuPolicy.BINPACK);
    Placement p =
        placer.place(
            node,
            PodRequests.of(List.of(List.of(nv(2, 100, 0)), List.of(nv(1, 100, 0))), 0),
            binpack,
            null);
    assertThat(p.containers().get(0)).extracting(DevicePick::id).containsExactly("g1", "g0");
  }
}
