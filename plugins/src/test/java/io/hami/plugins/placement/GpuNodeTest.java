package io.hami.plugins.placement;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.MakeNode;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.PairScores;
import org.junit.jupiter.api.Test;

class GpuNodeTest {

  private static GpuNode node() {
    NodeInfo info = NodeInfo.of(MakeNode.named("n").capacity("8", "32Gi", 110).obj());
    NodeDevices devices = new NodeDevices("n", ImmutableList.of(
        DeviceUsage.idle("g0", 0, "NVIDIA", "NVIDIA-T4", 0, 10, 16_000, 100),
        DeviceUsage.idle("g1", 1, "NVIDIA", "NVIDIA-T4", 0, 10, 16_000, 100).plus(1, 8_000, 50)),
        PairScores.NONE, null, 3);
    return GpuNode.of(GpuNodeTest.class, info, devices, CardWorkloads.none());
  }

  @Test
  void readsFreeSharesAndLeftovers() {
    GpuNode g = node();
    assertThat(g.table.free(0, 0)).isEqualTo(1000);
    assertThat(g.table.free(0, 1)).isEqualTo(500);
    assertThat(g.table.cpuLeft(0)).isEqualTo(8000);
    assertThat(g.ids).containsExactly("g0", "g1");
  }

  @Test
  void remembersEvaluationsPerTaskShape() {
    GpuNode g = node();
    Task half = new Task(1000, 0, 500, 1, 0, 0);
    Task sameShapeOtherPod = new Task(1000, 512, 500, 1, 0, 7);
    Task whole = new Task(1000, 0, 1000, 1, 0, 0);
    Task moreCpu = new Task(2000, 0, 500, 1, 0, 0);
    assertThat(g.memo(half)).isEqualTo(GpuNode.NOT_MEMOIZED);
    g.remember(half, 42L);
    assertThat(g.memo(half)).isEqualTo(42L);
    // Memory and shape ids are not part of a policy's evaluation.
    assertThat(g.memo(sameShapeOtherPod)).isEqualTo(42L);
    assertThat(g.memo(whole)).isEqualTo(GpuNode.NOT_MEMOIZED);
    assertThat(g.memo(moreCpu)).isEqualTo(GpuNode.NOT_MEMOIZED);
    g.remember(whole, Long.MIN_VALUE);
    assertThat(g.memo(whole)).isEqualTo(Long.MIN_VALUE);
    // A rebuilt node starts empty: its state may differ.
    assertThat(node().memo(half)).isEqualTo(GpuNode.NOT_MEMOIZED);
  }
}
