package io.hami.model.pod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §10.8: UUID and type filters. */
class DeviceSelectorsTest {

  private static final String U = "nvidia.com/use-gpuuuid";
  private static final String N = "nvidia.com/nouse-gpuuuid";
  private static final String UT = "nvidia.com/use-gputype";
  private static final String NT = "nvidia.com/nouse-gputype";

  static Stream<Arguments> uuids() {
    return Stream.of(
        arguments("V49 no annotations", Map.of(), "abc", true),
        arguments("V49 use list hit", Map.of(U, "abc,123"), "abc", true),
        arguments("V49 use list miss", Map.of(U, "abc,123"), "1abc", false),
        arguments("V49 nouse hit", Map.of(N, "abc,123"), "abc", false),
        arguments("V49 nouse miss", Map.of(N, "abc,123"), "1abc", true),
        arguments("V49 use then nouse", Map.of(U, "abc,123", N, "abc"), "abc", false),
        arguments("V49 use and other nouse", Map.of(U, "abc,123", N, "456"), "abc", true),
        arguments("V49 trimmed items", Map.of(U, " abc , 123 "), "abc", true),
        arguments("V49 empty use", Map.of(U, ""), "abc", true),
        arguments("V49 blank use", Map.of(U, "   "), "abc", true),
        arguments("V49 empty nouse", Map.of(N, ""), "abc", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("uuids")
  void uuidAllowed(String name, Map<String, String> annos, String id, boolean want) {
    assertThat(DeviceSelectors.uuidAllowed(annos, U, N, id)).isEqualTo(want);
  }

  static Stream<Arguments> types() {
    return Stream.of(
        arguments("V50 no annotations", Map.of(), true),
        arguments("V50 use A100,V100", Map.of(UT, "A100,V100"), true),
        arguments("V50 use V100", Map.of(UT, "V100"), false),
        arguments("V50 nouse A100", Map.of(NT, "A100"), false),
        arguments("V50 nouse V100", Map.of(NT, "V100"), true),
        arguments("V50 empty use", Map.of(UT, ""), true),
        arguments("V50 blank nouse", Map.of(NT, "  "), true),
        arguments("case-insensitive", Map.of(UT, "a100"), true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("types")
  void typeAllowed(String name, Map<String, String> annos, boolean want) {
    assertThat(DeviceSelectors.typeAllowed(annos, UT, NT, "NVIDIA-A100")).isEqualTo(want);
  }
}
