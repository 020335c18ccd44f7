package io.hami.plugins.fgd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

final class HamiWorkloadTest {

  static Stream<Arguments> shareOn() {
    return Stream.of(
        Arguments.of("cpu-only", HamiShape.cpuOnly(100), 0),
        Arguments.of(
            "percent memory and cores alike", HamiShape.ofShare(100, 1, 470, List.of()), 470),
        Arguments.of("memory percent dominates", new HamiShape(100, 1, 0, 60, 30, List.of()), 600),
        Arguments.of("cores dominate", new HamiShape(100, 1, 0, 20, 50, List.of()), 500),
        Arguments.of(
            "memory in MiB over a 16000 MiB card",
            new HamiShape(100, 1, 4000, 101, 0, List.of()),
            250),
        Arguments.of(
            "memory in MiB rounds up", new HamiShape(100, 1, 4001, 101, 0, List.of()), 251),
        Arguments.of(
            "no memory asked takes the card", new HamiShape(100, 1, 0, 101, 10, List.of()), 1000),
        Arguments.of(
            "cores over 100 are clamped", new HamiShape(100, 1, 0, 10, 300, List.of()), 1000));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void shareOn(String name, HamiShape shape, int want) {
    assertThat(shape.shareOn(16_000, 100)).isEqualTo(want);
  }

  @Test
  void shareOn_coreScalingKeepsThousandths() {
    // devcore 1000 (core scaling 10): 47 cores are 4.7% of the card.
    assertThat(new HamiShape(100, 1, 0, 1, 47, List.of()).shareOn(16_000, 1000)).isEqualTo(47);
  }

  @Test
  void allows_matchesTypesAsCaseInsensitiveSubstrings() {
    HamiShape s = HamiShape.ofShare(100, 1, 500, List.of("T4", "v100"));
    assertThat(s.allows("NVIDIA-Tesla T4")).isTrue();
    assertThat(s.allows("NVIDIA Tesla V100-SXM2-32GB")).isTrue();
    assertThat(s.allows("NVIDIA A100")).isFalse();
    assertThat(HamiShape.cpuOnly(1).allows("anything")).isTrue();
  }

  @Test
  void onCard_matchesTheOpenbMeasureForShareShapes() {
    // The generalisation reduces to the paper's measure when requests are trace shares.
    List<HamiShape> hami =
        List.of(
            HamiShape.ofShare(3152, 1, 810, List.of()), HamiShape.cpuOnly(4000),
            HamiShape.ofShare(8000, 8, 1000, List.of()),
                HamiShape.ofShare(1000, 1, 470, List.of("P100")));
    List<TaskShape> openb =
        List.of(
            new TaskShape(3152, 810, 1, 0),
            TaskShape.cpuOnly(4000),
            new TaskShape(8000, 1000, 8, 0),
            new TaskShape(1000, 470, 1, 2));
    long[] w = {5, 3, 1, 2};
    HamiWorkload workload = HamiWorkload.of(hami, w);
    TargetWorkload viaHami = workload.on("NVIDIA-Tesla T4", 15_360, 100);
    TargetWorkload direct = TargetWorkload.of(openb, w);
    int[][] states = {
      {1000, 1000}, {190, 1000}, {530, 0}, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}
    };
    for (int[] free : states) {
      for (long cpu : new long[] {500, 3152, 64_000}) {
        assertThat(
                Fragmentation.nodeFragment(
                    viaHami, HamiWorkload.NODE_MODEL, cpu, free, 0, free.length))
            .isEqualTo(Fragmentation.nodeFragment(direct, 1L, cpu, free, 0, free.length));
      }
    }
    assertThat(workload.on("NVIDIA-Tesla T4", 15_360, 100)).isSameAs(viaHami);
  }

  @Test
  void recentShapes_followTheLatestPods() {
    RecentShapes recent = new RecentShapes(10, 5, 0.95);
    assertThat(recent.current()).isNull();
    HamiShape a = HamiShape.ofShare(1000, 1, 500, List.of());
    HamiShape b = HamiShape.ofShare(2000, 1, 1000, List.of());
    recent.add(a);
    assertThat(recent.current().shapes()).containsExactly(a);
    List<HamiShape> seen = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      recent.add(b);
      seen.add(b);
    }
    assertThat(recent.current().shapes()).containsExactly(b);
    assertThat(recent.current().weight(0)).isEqualTo(10);
  }

  @Test
  void deviceShare_isTheSmallerFreeFraction() {
    assertThat(DeviceShare.freeMilli(true, 10, 1, 16_000, 4_000, 100, 50)).isEqualTo(500);
    assertThat(DeviceShare.freeMilli(true, 10, 1, 16_000, 12_000, 100, 50)).isEqualTo(250);
    assertThat(DeviceShare.freeMilli(true, 10, 10, 16_000, 0, 100, 0)).isZero();
    assertThat(DeviceShare.freeMilli(false, 10, 0, 16_000, 0, 100, 0)).isZero();
    assertThat(DeviceShare.freeMilli(true, 10, 0, 16_000, 0, 0, 0)).isEqualTo(1000);
  }
}
