package io.hami.plugins.fgd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

final class FgdTest {

  private static final long MODEL = 1L;

  private static long eval(
      TargetWorkload w, long cpuLeft, int[] free, int cpu, int milli, int count) {
    long current = Fragmentation.nodeFragment(w, MODEL, cpuLeft, free, 0, free.length);
    return Fgd.evaluate(
        w, current, MODEL, cpuLeft, free, 0, free.length, cpu, milli, count, new int[8]);
  }

  @Test
  void score_isFiftyAtZeroDeltaAndFallsAsFragmentGrows() {
    assertThat(Fgd.score(0, 1)).isEqualTo(50);
    assertThat(Fgd.score(1000, 1)).isEqualTo(26); // 100·σ(−1) = 26.9
    assertThat(Fgd.score(-1000, 1)).isEqualTo(73); // 100·σ(1) = 73.1
    assertThat(Fgd.score(40_000, 1000)).isEqualTo(49);
  }

  @Test
  void sharingTask_picksGpuThatLeavesLeastFragment() {
    // Target: tasks of 500 milli. A 300-milli task on the 800-free GPU leaves exactly 500 (usable);
    // on the full GPU it leaves 700, still usable; both keep the fragment, so the first index wins
    // ties. Make GPU 1 the strictly better one: on GPU 0 (free 600) 300 leaves 300 < 500
    // (fragment).
    TargetWorkload w = TargetWorkload.of(List.of(new TaskShape(100, 500, 1, 0)), new long[] {1});
    int[] free = {600, 800};
    long e = eval(w, 10_000, free, 100, 300, 1);
    assertThat(e & 0xFF).isEqualTo(0b10);
    assertThat(e >> 8).isEqualTo(50);
  }

  @Test
  void sharingTask_firstIndexWinsTies() {
    TargetWorkload w = TargetWorkload.of(List.of(new TaskShape(100, 100, 1, 0)), new long[] {1});
    long e = eval(w, 10_000, new int[] {1000, 1000, 1000}, 100, 300, 1);
    assertThat(e & 0xFF).isEqualTo(0b1);
  }

  @Test
  void wholeGpuTask_takesLowestIndexFreeGpus() {
    TargetWorkload w = TargetWorkload.of(List.of(new TaskShape(100, 1000, 1, 0)), new long[] {1});
    long e = eval(w, 10_000, new int[] {500, 1000, 1000, 1000}, 100, 1000, 2);
    assertThat(e & 0xFF).isEqualTo(0b110);
    // The fragment (the 500 GPU) does not change: score 50.
    assertThat(e >> 8).isEqualTo(50);
  }

  @Test
  void cpuOnlyTask_avoidsStrandingUsableGpus() {
    // The target needs 4 CPUs per GPU task; taking CPU below that strands 2000 milli-GPU.
    TargetWorkload w = TargetWorkload.of(List.of(new TaskShape(4000, 1000, 1, 0)), new long[] {1});
    long stranding = eval(w, 5000, new int[] {1000, 1000}, 2000, 0, 0);
    long harmless = eval(w, 9000, new int[] {1000, 1000}, 2000, 0, 0);
    assertThat(stranding >> 8).isLessThan(harmless >> 8);
    assertThat(harmless >> 8).isEqualTo(50);
    assertThat(stranding >> 8).isEqualTo(11); // Δ = +2000 → 100·σ(−2) = 11.9
  }
}
