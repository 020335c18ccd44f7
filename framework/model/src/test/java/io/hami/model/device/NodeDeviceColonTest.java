package io.hami.model.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.hami.model.Decoded;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §10.1: the colon/comma node register form. */
class NodeDeviceColonTest {

  private static final String P4 = "GPU-ebe7c3f7-303d-558d-435e-99a160631fe4";

  static Stream<Arguments> encodes() {
    return Stream.of(
        arguments(
            "V1 index 0",
            NodeDevice.of(P4, 0, 10, 7680, 100, "NVIDIA-Tesla P4", 0, "hami-core", true),
            P4 + ",10,7680,100,NVIDIA-Tesla P4,0,true,0,hami-core:"),
        arguments(
            "V2 index 1",
            NodeDevice.of(P4, 1, 10, 7680, 100, "NVIDIA-Tesla P4", 0, "hami-core", true),
            P4 + ",10,7680,100,NVIDIA-Tesla P4,0,true,1,hami-core:"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("encodes")
  void encode(String name, NodeDevice device, String want) {
    assertThat(NodeDeviceColon.encode(List.of(device))).isEqualTo(want);
    assertThat(NodeDeviceColon.decode(want)).isEqualTo(Decoded.ok(List.of(device)));
  }

  static Stream<Arguments> decodes() {
    return Stream.of(
        arguments(
            "V3 7 fields",
            P4 + ",10,7680,100,NVIDIA-Tesla P4,0,true:",
            List.of(NodeDevice.of(P4, 0, 10, 7680, 100, "NVIDIA-Tesla P4", 0, "hami-core", true))),
        arguments(
            "V4 9 fields",
            P4 + ",10,7680,100,NVIDIA-Tesla P4,0,true,1,hami-core:",
            List.of(NodeDevice.of(P4, 1, 10, 7680, 100, "NVIDIA-Tesla P4", 0, "hami-core", true))),
        arguments("V6 colon", ":", List.of()),
        arguments("V6 two colons", "::", List.of()),
        arguments(
            "V13 Hygon",
            "test-0,1,1024,100,DCU,0,true,0,test:",
            List.of(NodeDevice.of("test-0", 0, 1, 1024, 100, "DCU", 0, "test", true))),
        arguments(
            "docs example 2xV100",
            "GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true:"
                + "GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true:",
            List.of(
                NodeDevice.of(
                    "GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec",
                    0,
                    10,
                    32768,
                    100,
                    "NVIDIA-Tesla V100-PCIE-32GB",
                    0,
                    "hami-core",
                    true),
                NodeDevice.of(
                    "GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448",
                    0,
                    10,
                    32768,
                    100,
                    "NVIDIA-Tesla V100-PCIE-32GB",
                    0,
                    "hami-core",
                    true))),
        arguments(
            "Go ParseBool forms",
            "a,1,2,3,T,0,F:b,1,2,3,T,-1,1:",
            List.of(
                NodeDevice.of("a", 0, 1, 2, 3, "T", 0, "hami-core", false),
                NodeDevice.of("b", 0, 1, 2, 3, "T", -1, "hami-core", true))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("decodes")
  void decode(String name, String input, List<NodeDevice> want) {
    assertThat(NodeDeviceColon.decode(input)).isEqualTo(Decoded.ok(want));
  }

  static Stream<Arguments> errors() {
    String base = P4 + ",10,7680,100,NVIDIA-Tesla P4,0,true";
    return Stream.of(
        arguments("V5 empty", "", "node annotation missing device separator"),
        arguments("V5 comma", ",", "node annotation missing device separator"),
        arguments("V5 a", "a", "node annotation missing device separator"),
        arguments("V7 two fields", ",:", "unexpected field count 2 in node annotation"),
        arguments("V8 garbage", "garbage:", "malformed node annotation segment: \"garbage\""),
        arguments(
            "V9 five fields",
            P4 + ",10,7680,100,NVIDIA-Tesla P4:",
            "unexpected field count 5 in node annotation"),
        arguments(
            "V10 count", P4 + ",notanint,7680,100,NVIDIA-Tesla P4,0,true:", "invalid count field"),
        arguments(
            "V10 memory", P4 + ",10,notanint,100,NVIDIA-Tesla P4,0,true:", "invalid memory field"),
        arguments(
            "V10 core", P4 + ",10,7680,notanint,NVIDIA-Tesla P4,0,true:", "invalid core field"),
        arguments(
            "V11 numa", P4 + ",10,7680,100,NVIDIA-Tesla P4,notanint,true:", "invalid numa field"),
        arguments(
            "V11 health", P4 + ",10,7680,100,NVIDIA-Tesla P4,0,notabool:", "invalid health field"),
        arguments(
            "V12 negative index", base + ",-1,hami-core:", "index field must not be negative: -1"),
        arguments("V14 Hygon 5 fields", "test-0,1,1024,100,DCU:", "unexpected field count 5"),
        arguments("count over int32", P4 + ",2147483648,7680,100,T,0,true:", "invalid count field"),
        arguments("8 fields", base + ",0:", "unexpected field count 8"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errors")
  void decodeError(String name, String input, String message) {
    Decoded<List<NodeDevice>> d = NodeDeviceColon.decode(input);
    assertThat(d.failure()).hasValueSatisfying(e -> assertThat(e.message()).contains(message));
  }

  @Test
  void errorNamesFieldAndValue() {
    var e = NodeDeviceColon.decode("ok,1,1,1,T,0,true:bad,1,x,1,T,0,true:").failure().orElseThrow();
    assertThat(e.field()).isEqualTo("[1].memory");
    assertThat(e.value()).isEqualTo("x");
  }
}
