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
    NodeDevices devices =
        new NodeDevices(
            "n",
            ImmutableList.of(
                DeviceUsage.idle("g0", 0, "NVIDIA", "NVIDIA-T4", 0, 10, 16_000, 100),
                DeviceUsage.idle("g1", 1, "NVIDIA", "NVIDIA-T4", 0, 10, 16_000, 100)
                    .plus(1, 8_000, 50)),
            PairScores.NONE,
            null,
            3);
    return GpuNode.of(GpuNodeTest.class, 3, info, devices, CardWorkloads.none());
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
  void keepsEvaluationsPerShapeForTheSameCompactNodeOnly() {
    GpuNode g = node();
    ShapeEvaluations half = new ShapeEvaluations();
    assertThat(half.get(g)).isEqualTo(ShapeEvaluations.NOT_KEPT);
    // No room for the slot yet: nothing is kept.
    half.put(g, 42L);
    assertThat(half.get(g)).isEqualTo(ShapeEvaluations.NOT_KEPT);
    half.ensure(g.slot + 1);
    half.put(g, 42L);
    assertThat(half.get(g)).isEqualTo(42L);
    half.put(g, Long.MIN_VALUE);
    assertThat(half.get(g)).isEqualTo(Long.MIN_VALUE);
    // A rebuilt node, in the same slot, starts empty: its state may differ.
    assertThat(half.get(node())).isEqualTo(ShapeEvaluations.NOT_KEPT);
    // Growing keeps what was kept.
    half.ensure(100);
    assertThat(half.get(g)).isEqualTo(Long.MIN_VALUE);
  }
}
