package io.hami.model.pod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.hami.model.Decoded;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §10.11: failure reasons (V78), scoring weights (V79), usage collapse (V80). */
class MiscVectorsTest {

  @Test
  void v78_parseReason() {
    assertThat(
            FitReasons.parse(
                "3/8 CardInsufficientMemory, 2/8 CardInsufficientCore, 3/8 CardNotHealth"))
        .isEqualTo(
            Decoded.ok(
                Map.of(
                    "CardInsufficientMemory", 3, "CardInsufficientCore", 2, "CardNotHealth", 3)));
  }

  @Test
  void formatSortsEntries() {
    var counts = new LinkedHashMap<String, Integer>();
    counts.put("CardNotHealth", 3);
    counts.put("CardInsufficientMemory", 1);
    assertThat(FitReasons.format(counts, 8))
        .isEqualTo("1/8 CardInsufficientMemory, 3/8 CardNotHealth");
    assertThat(FitReasons.format(Map.of("AllocatedCardsInsufficientRequest", 2), 2))
        .isEqualTo("2/2 AllocatedCardsInsufficientRequest");
  }

  static Stream<Arguments> weights() {
    return Stream.of(
        arguments("V79 ordered", "slot=1,core=2,memory=3", new ScoringWeights(1, 2, 3)),
        arguments(
            "V79 spaces any order",
            " memory = 3, slot = 1, core = 0 ",
            new ScoringWeights(1, 0, 3)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("weights")
  void weightsDecode(String name, String value, ScoringWeights want) {
    assertThat(ScoringWeights.decode(value)).isEqualTo(Decoded.ok(want));
    assertThat(ScoringWeights.decode(want.encode())).isEqualTo(Decoded.ok(want));
  }

  static Stream<Arguments> weightErrors() {
    return Stream.of(
        arguments("V79 empty", "", "expected slot, core, and memory weights"),
        arguments("V79 missing core", "slot=1,memory=3", "expected slot, core, and memory weights"),
        arguments(
            "trailing comma", "slot=1,core=1,memory=1,", "expected slot, core, and memory weights"),
        arguments("leading comma", ",slot=1,core=1,memory=1", "expected slot, core"),
        arguments("empty entry among three", "slot=1,,memory=1", "expected key=value entries"),
        arguments("V79 no equals", "slot=1,core,memory=3", "expected key=value entries"),
        arguments(
            "V79 not integer", "slot=1,core=high,memory=3", "\"core\" weight must be an integer"),
        arguments("V79 negative", "core=-1,slot=1,memory=1", "must not be negative"),
        arguments("V79 unknown", "slot=1,bandwidth=2,memory=3", "unknown weight \"bandwidth\""),
        arguments("V79 duplicate", "slot=1,slot=2,memory=3", "duplicate \"slot\" weight"),
        arguments(
            "V79 all zero", "slot=0,core=0,memory=0", "at least one weight must be positive"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("weightErrors")
  void weightsError(String name, String value, String message) {
    assertThat(ScoringWeights.decode(value).failure())
        .hasValueSatisfying(e -> assertThat(e.message()).contains(message));
  }

  private static List<ContainerDevice> on0(int mem, int cores) {
    return List.of(new ContainerDevice("gpu0", "NVIDIA", mem, cores));
  }

  static Stream<Arguments> collapse() {
    return Stream.of(
        arguments(
            "V80 two app containers",
            0,
            List.of(on0(100, 10), on0(200, 20)),
            new DeviceUsage(300, 30, 2)),
        arguments(
            "V80 two init containers",
            2,
            List.of(on0(100, 10), on0(200, 30)),
            new DeviceUsage(200, 30, 1)),
        arguments(
            "V80 big init, small app",
            1,
            List.of(on0(500, 50), on0(100, 10)),
            new DeviceUsage(500, 50, 1)),
        arguments(
            "V80 small init, two apps",
            1,
            List.of(on0(100, 10), on0(200, 20), on0(300, 30)),
            new DeviceUsage(500, 50, 2)),
        arguments(
            "V80 three inits, one app",
            3,
            List.of(on0(100, 10), on0(300, 30), on0(200, 20), on0(50, 5)),
            new DeviceUsage(300, 30, 1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("collapse")
  void v80_collapse(
      String name, int init, List<List<ContainerDevice>> containers, DeviceUsage want) {
    List<List<ContainerDevice>> withTail = new ArrayList<>(containers);
    withTail.add(List.of());
    assertThat(UsageCollapse.collapse(new PodDevices(withTail), init, false))
        .isEqualTo(Map.of("gpu0", want));
  }

  @Test
  void collapseAfterInitDoneKeepsAppOnly() {
    PodDevices pod = PodDevices.of(on0(500, 50), on0(100, 10));
    assertThat(UsageCollapse.collapse(pod, 1, true))
        .isEqualTo(Map.of("gpu0", new DeviceUsage(100, 10, 1)));
    assertThat(UsageCollapse.collapse(PodDevices.of(on0(500, 50)), 1, true)).isEmpty();
  }
}
