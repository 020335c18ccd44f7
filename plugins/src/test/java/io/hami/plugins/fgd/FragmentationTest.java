package io.hami.plugins.fgd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class FragmentationTest {

  private static final long T4 = 1L;
  private static final long V100 = 1L << 1;

  record Case(String name, long model, long cpuLeft, int[] free, TaskShape task, int want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> taskFragmentCases() {
    return Stream.of(
        new Case(
            "cpu-only task: all idle GPU is a fragment",
            T4,
            8000,
            new int[] {1000, 300},
            TaskShape.cpuOnly(1000),
            1300),
        new Case(
            "model mismatch: all idle",
            T4,
            8000,
            new int[] {1000, 300},
            new TaskShape(1000, 500, 1, V100),
            1300),
        new Case(
            "fits: only GPUs smaller than the request count",
            T4,
            8000,
            new int[] {1000, 300, 600},
            new TaskShape(1000, 500, 1, 0),
            300),
        new Case(
            "fits with allowed model",
            T4,
            8000,
            new int[] {1000, 300},
            new TaskShape(1000, 500, 1, T4 | V100),
            300),
        new Case(
            "fits GPUs but CPU lacking: all idle",
            T4,
            500,
            new int[] {1000, 300},
            new TaskShape(1000, 500, 1, 0),
            1300),
        new Case(
            "too few fitting GPUs for a multi-GPU task: all idle",
            T4,
            8000,
            new int[] {1000, 300, 1000},
            new TaskShape(1000, 1000, 4, 0),
            2300),
        new Case(
            "multi-GPU task fits: partial GPUs count",
            T4,
            8000,
            new int[] {1000, 300, 1000},
            new TaskShape(1000, 1000, 2, 0),
            300),
        new Case(
            "exactly enough share fits",
            T4,
            1000,
            new int[] {500},
            new TaskShape(1000, 500, 1, 0),
            0),
        new Case(
            "node without GPUs has no fragment",
            0,
            8000,
            new int[] {},
            new TaskShape(1000, 500, 1, 0),
            0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("taskFragmentCases")
  void taskFragment(Case c) {
    TaskShape t = c.task();
    int got =
        Fragmentation.taskFragment(
            c.model(),
            c.cpuLeft(),
            c.free(),
            0,
            c.free().length,
            t.cpuMilli(),
            t.gpuMilli(),
            t.gpuCount(),
            t.modelMask());
    assertThat(got).isEqualTo(c.want());
  }

  @Test
  void nodeFragment_isWeightedSumOfTaskFragments() {
    List<TaskShape> shapes =
        List.of(
            TaskShape.cpuOnly(1000),
            new TaskShape(1000, 500, 1, 0),
            new TaskShape(1000, 1000, 2, 0));
    TargetWorkload w = TargetWorkload.of(shapes, new long[] {1, 2, 3});
    int[] free = {0, 0, 1000, 300, 1000, 0};
    // Node at offset 2 with 3 GPUs: idle 2300; shape 0 -> 2300, shape 1 -> 300, shape 2 -> 300.
    long got = Fragmentation.nodeFragment(w, T4, 8000, free, 2, 3);
    assertThat(got).isEqualTo(1 * 2300 + 2 * 300 + 3 * 300);
    for (int i = 0; i < shapes.size(); i++) {
      TaskShape s = shapes.get(i);
      assertThat(
              Fragmentation.taskFragment(
                  T4, 8000, free, 2, 3, s.cpuMilli(), s.gpuMilli(), s.gpuCount(), s.modelMask()))
          .isEqualTo(new int[] {2300, 300, 300}[i]);
    }
  }

  @Test
  void rate_isNaNWhenNothingIdle() {
    assertThat(Fragmentation.rate(10, 0)).isNaN();
    assertThat(Fragmentation.rate(25, 100)).isEqualTo(25.0);
  }
}
