package io.hami.plugins.numa;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.MakeNode;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.PairScores;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.PodRequests;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

final class NumaCountsTest {

  static DeviceUsage gpu(int index, int numa) {
    return DeviceUsage.idle("g" + index, index, "NVIDIA", "NVIDIA-T4", numa, 10, 16_000, 100);
  }

  static NodeDevices view(DeviceUsage... devices) {
    return new NodeDevices("n", ImmutableList.copyOf(devices), PairScores.NONE, null, 1);
  }

  static NumaCounts.Usable usable(int memMiB) {
    return NumaCounts.Usable.of(
        new VendorRequest("NVIDIA", 2, memMiB, VendorRequest.PERCENT_UNSET, 10),
        PodGpuOptions.DEFAULT);
  }

  static Stream<Arguments> mostOnOneNuma() {
    return Stream.of(
        Arguments.of("one per NUMA node", view(gpu(0, 0), gpu(1, 1)), 1000, 1),
        Arguments.of("both on NUMA node 0", view(gpu(0, 0), gpu(1, 0)), 1000, 2),
        Arguments.of(
            "interleaved, three on NUMA node 1",
            view(gpu(0, 0), gpu(1, 1), gpu(2, 0), gpu(3, 1), gpu(4, 1)),
            1000,
            3),
        Arguments.of(
            "a full device is not usable",
            view(gpu(0, 0), gpu(1, 0).plus(1, 15_500, 10), gpu(2, 1)),
            1000,
            1),
        Arguments.of("no device has the memory", view(gpu(0, 0), gpu(1, 0)), 20_000, 0),
        Arguments.of("no devices", view(), 1000, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void mostOnOneNuma(String name, NodeDevices view, int memMiB, int want) {
    assertThat(NumaCounts.mostOnOneNuma(view, usable(memMiB))).isEqualTo(want);
  }

  @Test
  void keptCount_standsForTheSameViewAndAnEqualKey() {
    NodeDevices v = view(gpu(0, 0), gpu(1, 0));
    NumaCounts c = NumaCounts.NONE.with(v, usable(1000), 2);
    assertThat(c.get(v, usable(1000))).isEqualTo(2);
    assertThat(c.get(v, usable(2000))).isEqualTo(NumaCounts.NOT_KEPT);
  }

  @Test
  void anotherView_dropsTheCounts() {
    NodeDevices v = view(gpu(0, 0), gpu(1, 0));
    NodeDevices same = view(gpu(0, 0), gpu(1, 0));
    NumaCounts c = NumaCounts.NONE.with(v, usable(1000), 2).with(v, usable(2000), 2);
    // Equal content is not enough: a view is replaced whenever the node's usage changes.
    assertThat(c.get(same, usable(1000))).isEqualTo(NumaCounts.NOT_KEPT);
    NumaCounts next = c.with(same, usable(3000), 2);
    assertThat(next.get(same, usable(3000))).isEqualTo(2);
    assertThat(next.get(same, usable(1000))).isEqualTo(NumaCounts.NOT_KEPT);
  }

  @Test
  void atMostKeptKeys_theOldestGoes() {
    NodeDevices v = view(gpu(0, 0), gpu(1, 0));
    NumaCounts c = NumaCounts.NONE;
    for (int i = 0; i <= NumaCounts.KEPT; i++) {
      c = c.with(v, usable(1000 + i), 2);
    }
    assertThat(c.get(v, usable(1000))).isEqualTo(NumaCounts.NOT_KEPT);
    for (int i = 1; i <= NumaCounts.KEPT; i++) {
      assertThat(c.get(v, usable(1000 + i))).isEqualTo(2);
    }
  }

  @Test
  void alignedOnNodeInfo_followsTheView() {
    NodeInfo node = NodeInfo.of(MakeNode.named("n").capacity("8", "32Gi", 110).obj());
    NumaAlignment.Multi m =
        NumaAlignment.Multi.of(
            new PodDeviceRequests(
                new PodRequests(
                    ImmutableList.of(
                        ImmutableList.of(
                            new VendorRequest("NVIDIA", 2, 1000, VendorRequest.PERCENT_UNSET, 10))),
                    0),
                PodGpuOptions.DEFAULT));
    NodeDevices packed = view(gpu(0, 0), gpu(1, 0), gpu(2, 1));
    NodeDevices filled = view(gpu(0, 0), gpu(1, 0).plus(1, 15_500, 10), gpu(2, 1));
    List<NodeDevices> views = List.of(packed, packed, filled, filled, packed);
    List<Integer> want = List.of(1, 1, 0, 0, 1);
    for (int i = 0; i < views.size(); i++) {
      assertThat(NumaAlignment.aligned(node, views.get(i), m))
          .as("read %d", i)
          .isEqualTo(want.get(i))
          .isEqualTo(NumaAlignment.aligned(views.get(i), m));
    }
  }
}
