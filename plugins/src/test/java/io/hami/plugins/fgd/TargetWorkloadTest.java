package io.hami.plugins.fgd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hami.plugins.fgd.TargetWorkload.LabeledShape;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class TargetWorkloadTest {

  private static List<LabeledShape> pods(Object... countAndShape) {
    List<LabeledShape> out = new ArrayList<>();
    for (int i = 0; i < countAndShape.length; i += 2) {
      for (int n = 0; n < (Integer) countAndShape[i]; n++) {
        out.add(new LabeledShape((TaskShape) countAndShape[i + 1], ""));
      }
    }
    return out;
  }

  @Test
  void keepsMostPopularShapesUntilCoverageIncludingTheCrossingOne() {
    TaskShape a = new TaskShape(1000, 500, 1, 0);
    TaskShape b = new TaskShape(2000, 1000, 1, 0);
    TaskShape c = TaskShape.cpuOnly(500);
    TaskShape d = new TaskShape(4000, 1000, 8, 0);
    TargetWorkload w = TargetWorkload.fromPopulation(pods(50, a, 30, b, 16, c, 4, d), 0.95);
    assertThat(w.shapes()).containsExactly(a, b, c);
    assertThat(w.totalWeight()).isEqualTo(96);
    assertThat(w.weight(0)).isEqualTo(50);
  }

  @Test
  void tiesBreakOnCpuThenShareThenCountDescending() {
    TaskShape small = new TaskShape(1000, 500, 1, 0);
    TaskShape bigCpu = new TaskShape(2000, 100, 1, 0);
    TaskShape bigShare = new TaskShape(1000, 900, 1, 0);
    TargetWorkload w =
        TargetWorkload.fromPopulation(pods(10, small, 10, bigCpu, 10, bigShare), 1.0);
    assertThat(w.shapes()).containsExactly(bigCpu, bigShare, small);
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> TargetWorkload.fromPopulation(List.of(), 0.95))
        .hasMessageContaining("no pods");
    assertThatThrownBy(() -> TargetWorkload.fromPopulation(pods(1, TaskShape.cpuOnly(1)), 1.5))
        .hasMessageContaining("coverage");
    assertThatThrownBy(() -> new TaskShape(100, 1500, 1, 0)).hasMessageContaining("gpuMilli");
    assertThatThrownBy(() -> new TaskShape(100, 500, 0, 0)).hasMessageContaining("both");
  }
}
