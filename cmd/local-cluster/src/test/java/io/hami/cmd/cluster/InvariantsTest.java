package io.hami.cmd.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class InvariantsTest {

  static Stream<Arguments> usages() {
    return Stream.of(
        Arguments.of(
            "one app container",
            "GPU-a,NVIDIA,3000,30:;",
            0,
            Map.of("GPU-a", List.of(3000L, 30L, 1L))),
        Arguments.of(
            "two app containers on one card add up",
            "GPU-a,NVIDIA,3000,0:;GPU-a,NVIDIA,5000,0:;",
            0,
            Map.of("GPU-a", List.of(8000L, 0L, 2L))),
        Arguments.of(
            "init peak above the apps' sum",
            "GPU-a,NVIDIA,6000,20:;GPU-a,NVIDIA,2000,20:;GPU-a,NVIDIA,3000,20:;",
            1,
            Map.of("GPU-a", List.of(6000L, 40L, 2L))),
        Arguments.of(
            "two init containers count by the larger, not the sum",
            "GPU-a,NVIDIA,4000,50:;GPU-a,NVIDIA,5000,10:;GPU-a,NVIDIA,1000,10:;",
            2,
            Map.of("GPU-a", List.of(5000L, 50L, 1L))),
        Arguments.of(
            "init and app on different cards",
            ";GPU-a,NVIDIA,2000,20:;GPU-b,NVIDIA,3000,30:;GPU-a,NVIDIA,1000,10:GPU-b,NVIDIA,1000,10:;",
            2,
            Map.of("GPU-a", List.of(2000L, 20L, 1L), "GPU-b", List.of(4000L, 40L, 2L))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("usages")
  void podUsage_countsInitContainersByPeakAndAppContainersBySum(
      String name, String annotation, int initCount, Map<String, List<Long>> want) {
    Map<String, long[]> got = Invariants.podUsage(Invariants.parseDevices(annotation), initCount);

    assertThat(got).containsOnlyKeys(want.keySet());
    want.forEach(
        (uuid, w) ->
            assertThat(got.get(uuid)).as(uuid).containsExactly(w.get(0), w.get(1), w.get(2)));
  }

  @Test
  void parseDevices_keepsEmptyEntriesAndRejectsShortRecords() {
    assertThat(Invariants.parseDevices(";GPU-a,NVIDIA,1000,30:;"))
        .hasSize(2)
        .first()
        .asList()
        .isEmpty();
    assertThatThrownBy(() -> Invariants.parseDevices("GPU-a,NVIDIA:;"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GPU-a,NVIDIA");
  }
}
