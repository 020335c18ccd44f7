package io.hami.plugins.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import io.hami.model.testing.MakeGpuPod;
import io.hami.plugins.vgpu.DeviceChoice;
import io.hami.plugins.vgpu.DevicePick;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.DeviceUsageIndex;
import io.hami.plugins.vgpu.PairScores;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.PodRequests;
import io.hami.plugins.vgpu.PodUsage;
import io.hami.plugins.vgpu.VendorRequest;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class TopologyPluginTest {

  /** Four GPUs: 0-1 and 2-3 joined by NVLink (200), everything else across CPUs (10). */
  static final PairScores NVLINK_PAIRS =
      PairScores.of(
          Map.of(
              "g0", Map.of("g1", 200, "g2", 10, "g3", 10),
              "g1", Map.of("g0", 200, "g2", 10, "g3", 10),
              "g2", Map.of("g3", 200, "g0", 10, "g1", 10),
              "g3", Map.of("g2", 200, "g0", 10, "g1", 10)));

  final DeviceUsageIndex index =
      new DeviceUsageIndex(
          node ->
              new DeviceUsageIndex.Registered(
                  ImmutableList.of(
                      DeviceUsage.idle("g0", 0, "NVIDIA", "NVIDIA-A100", 0, 10, 40000, 100),
                      DeviceUsage.idle("g1", 1, "NVIDIA", "NVIDIA-A100", 0, 10, 40000, 100),
                      DeviceUsage.idle("g2", 2, "NVIDIA", "NVIDIA-A100", 1, 10, 40000, 100),
                      DeviceUsage.idle("g3", 3, "NVIDIA", "NVIDIA-A100", 1, 10, 40000, 100)),
                  node.getMetadata().getName().equals("linked") ? NVLINK_PAIRS : PairScores.NONE,
                  null),
          pod -> null,
          (n, m) -> {});

  /** The cycle's snapshot: none unless a case sets one (Reserve then reads the current view). */
  Snapshot snapshot = Snapshot.of(List.of());

  final TopologyPlugin plugin = new TopologyPlugin(index, () -> snapshot);

  CycleState state(int gpus) {
    CycleState s = new CycleState();
    s.write(
        VgpuPlugin.REQUESTS,
        new PodDeviceRequests(
            PodRequests.single(
                new VendorRequest("NVIDIA", gpus, 1000, VendorRequest.PERCENT_UNSET, 0)),
            PodGpuOptions.DEFAULT));
    return s;
  }

  @Test
  void reserve_prefersTheNvlinkPair() {
    index.upsertNode(new NodeBuilder().withNewMetadata().withName("linked").endMetadata().build());
    // g0 is busy: the best pair left is g2-g3.
    index.reserve(
        "other",
        "linked",
        PodUsage.collapse(List.of(List.of(new DevicePick("g0", "NVIDIA", 40000, 0))), 0, false));
    CycleState s = state(2);
    Pod pod = MakeGpuPod.named("p").gpus(2).obj();
    assertThat(plugin.reserve(s, pod, "linked").isSuccess()).isTrue();
    DeviceChoice c = s.require(VgpuPlugin.PREFERRED_DEVICES);
    assertThat(c.containers().get(0)).containsExactlyInAnyOrder("g2", "g3");
    plugin.unreserve(s, pod, "linked");
    assertThat(s.get(VgpuPlugin.PREFERRED_DEVICES)).isNull();
  }

  @Test
  void reserve_prefersThePairScoreSaw_evenWhenTheNodeChangedSince() {
    Node linked = new NodeBuilder().withNewMetadata().withName("linked").endMetadata().build();
    index.upsertNode(linked);
    PodUsage onG0 =
        PodUsage.collapse(List.of(List.of(new DevicePick("g0", "NVIDIA", 40000, 0))), 0, false);
    index.reserve("other", "linked", onG0);
    // A NodeInfo of the scheduler's cache (generation above 0) keeps the view Score read.
    NodeInfo cycle = NodeInfo.of(linked).withGeneration(1);
    snapshot = Snapshot.of(List.of(cycle));
    CycleState s = state(2);
    Pod pod = MakeGpuPod.named("p").gpus(2).obj();
    assertThat(plugin.score(s, pod, cycle)).isPositive();
    // After Score: g0 is free again and g2 taken, so the node's best pair now is g0-g1.
    index.unreserve("other");
    index.reserve(
        "another",
        "linked",
        PodUsage.collapse(List.of(List.of(new DevicePick("g2", "NVIDIA", 40000, 0))), 0, false));

    assertThat(plugin.reserve(s, pod, "linked").isSuccess()).isTrue();
    DeviceChoice c = s.require(VgpuPlugin.PREFERRED_DEVICES);
    assertThat(c.containers().get(0)).containsExactlyInAnyOrder("g2", "g3");
  }

  @Test
  void score_isZeroWithoutTopologyAndHigherWithNvlink() {
    index.upsertNode(new NodeBuilder().withNewMetadata().withName("linked").endMetadata().build());
    index.upsertNode(new NodeBuilder().withNewMetadata().withName("plain").endMetadata().build());
    Pod pod = MakeGpuPod.named("p").gpus(2).obj();
    CycleState s = state(2);
    assertThat(
            plugin.score(
                s,
                pod,
                NodeInfo.of(
                    new NodeBuilder().withNewMetadata().withName("linked").endMetadata().build())))
        .isEqualTo(200);
    assertThat(
            plugin.score(
                s,
                pod,
                NodeInfo.of(
                    new NodeBuilder().withNewMetadata().withName("plain").endMetadata().build())))
        .isZero();
  }

  @Test
  void reserve_leavesSingleGpuPodsAlone() {
    index.upsertNode(new NodeBuilder().withNewMetadata().withName("linked").endMetadata().build());
    CycleState s = state(1);
    assertThat(plugin.reserve(s, MakeGpuPod.named("p").gpus(1).obj(), "linked").isSuccess())
        .isTrue();
    assertThat(s.get(VgpuPlugin.PREFERRED_DEVICES)).isNull();
  }
}
