package io.hami.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class CurvesTest {

  private static RunResult run(long capacity, long[] arrived, long[] used) {
    int n = arrived.length;
    return new RunResult(
        "t",
        "p",
        1,
        capacity,
        1,
        0,
        new int[n],
        arrived,
        used,
        new long[n],
        new int[n],
        new int[n]);
  }

  @Test
  void arrivedPercent_roundsHalfToEven() {
    // capacity 200: arrived 1 → 0.5% → 0; 3 → 1.5% → 2; 5 → 2.5% → 2; 7 → 3.5% → 4.
    RunResult r = run(200, new long[] {1, 3, 5, 7}, new long[4]);
    assertThat(Curves.arrivedPercent(r)).containsExactly(0, 2, 2, 4);
  }

  @Test
  void curve_meansRecordsAtXAndFallsBackToNeighbours() {
    // capacity 100: records at 10% (twice) and 12%.
    RunResult r = run(100, new long[] {10, 10, 12}, new long[] {5, 7, 10});
    double[] c = Curves.curve(r, Curves.Metric.UNALLOCATED_GPU);
    assertThat(c[10]).isEqualTo(94.0); // mean of 95 and 93
    assertThat(c[11]).isEqualTo(92.67); // no record at 11: mean of 95, 93, 90
    assertThat(c[12]).isEqualTo(90.0);
    assertThat(c[14]).isNaN();
  }
}
