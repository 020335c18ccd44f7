package io.hami.plugins.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hami.plugins.fgd.TargetWorkload;
import io.hami.plugins.fgd.TaskShape;
import java.util.List;
import org.junit.jupiter.api.Test;

final class NodeTableTest {

  private static final TargetWorkload WORKLOAD =
      TargetWorkload.of(List.of(new TaskShape(1000, 600, 1, 0)), new long[] {1});

  private static NodeTable twoNodes() {
    return new NodeTable(
        WORKLOAD,
        new long[] {4000, 8000},
        new long[] {1024, 2048},
        new long[] {1, 2},
        new int[] {2, 4});
  }

  @Test
  void emptyTable_hasCapacityAndNoFragment() {
    NodeTable t = twoNodes();
    assertThat(t.capacity()).isEqualTo(6000);
    assertThat(t.totalIdle()).isEqualTo(6000);
    assertThat(t.totalFragment()).isZero();
  }

  @Test
  void place_updatesResourcesFragmentAndVersion() {
    NodeTable t = twoNodes();
    int v = t.version(1);
    t.place(1, new Task(1000, 512, 500, 1, 0, 0), 0b0100);
    assertThat(t.cpuLeft(1)).isEqualTo(7000);
    assertThat(t.memLeft(1)).isEqualTo(1536);
    assertThat(t.free(1, 2)).isEqualTo(500);
    assertThat(t.gpuLeft(1)).isEqualTo(3500);
    assertThat(t.totalIdle()).isEqualTo(5500);
    // GPU 2 now holds 500 < 600: a fragment of 500 milli.
    assertThat(t.fragmentMilli()).isEqualTo(500.0);
    assertThat(t.version(1)).isEqualTo(v + 1);
    assertThat(t.version(0)).isZero();
  }

  @Test
  void fits_checksCpuMemoryModelAndGpus() {
    NodeTable t = twoNodes();
    assertThat(t.fits(0, new Task(4000, 1024, 1000, 2, 0, 0))).isTrue();
    assertThat(t.fits(0, new Task(4001, 0, 0, 0, 0, 0))).isFalse();
    assertThat(t.fits(0, new Task(0, 1025, 0, 0, 0, 0))).isFalse();
    assertThat(t.fits(0, new Task(0, 0, 1000, 3, 0, 0))).isFalse();
    assertThat(t.fits(0, new Task(0, 0, 500, 1, 0b10, 0))).isFalse();
    assertThat(t.fits(1, new Task(0, 0, 500, 1, 0b10, 0))).isTrue();
  }

  @Test
  void place_rejectsWrongGpuMasks() {
    NodeTable t = twoNodes();
    assertThatThrownBy(() -> t.place(0, new Task(0, 0, 500, 1, 0, 0), 0b11))
        .isInstanceOf(IllegalArgumentException.class);
    t.place(0, new Task(0, 0, 800, 1, 0, 0), 0b01);
    assertThatThrownBy(() -> t.place(0, new Task(0, 0, 800, 1, 0, 0), 0b01))
        .isInstanceOf(IllegalStateException.class);
  }
}
