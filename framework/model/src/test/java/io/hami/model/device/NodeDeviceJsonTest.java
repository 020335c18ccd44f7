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

/** Spec §1.3 and §10.2: the JSON node register form. */
class NodeDeviceJsonTest {

  static Stream<Arguments> encodes() {
    return Stream.of(
        arguments(
            "§1.3 T4 v2.10 output",
            List.of(
                NodeDevice.of(
                    "GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76",
                    0,
                    10,
                    15360,
                    100,
                    "NVIDIA-Tesla T4",
                    0,
                    "hami-core",
                    true)),
            "[{\"id\":\"GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76\",\"count\":10,\"devmem\":15360,\"devcore\":100,"
                + "\"type\":\"NVIDIA-Tesla T4\",\"mode\":\"hami-core\",\"health\":true}]"),
        arguments("V17 empty", List.of(), "[]"),
        arguments(
            "V17 health omitted",
            List.of(NodeDevice.of("id-2", 2, 2, 2048, 20, "type2", 1, "", false)),
            "[{\"id\":\"id-2\",\"index\":2,\"count\":2,\"devmem\":2048,\"devcore\":20,\"type\":\"type2\",\"numa\":1}]"),
        arguments("all zero", List.of(NodeDevice.of("", 0, 0, 0, 0, "", 0, "", false)), "[{}]"),
        arguments(
            "Go HTML-safe escapes",
            List.of(NodeDevice.of("a\"<b>&\\\n", 0, 1, 0, 0, "t\u2028", 0, "", false)),
            "[{\"id\":\"a\\\"\\u003cb\\u003e\\u0026\\\\\\n\",\"count\":1,\"type\":\"t\\u2028\"}]"),
        arguments(
            "V18 MIG profile in device",
            List.of(
                new NodeDevice(
                    "GPU-a",
                    0,
                    7,
                    40960,
                    100,
                    "NVIDIA A100",
                    0,
                    "mig",
                    List.of(
                        new MigProfile("1g.5gb", 4864, 15, 1, 7, List.of(new MigPlacement(6, 1)))),
                    true)),
            "[{\"id\":\"GPU-a\",\"count\":7,\"devmem\":40960,\"devcore\":100,\"type\":\"NVIDIA A100\",\"mode\":\"mig\","
                + "\"migProfiles\":[{\"name\":\"1g.5gb\",\"memoryMB\":4864,\"core\":15,\"sliceCount\":1,"
                + "\"placements\":[{\"start\":6,\"size\":1}]}],\"health\":true}]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("encodes")
  void encode(String name, List<NodeDevice> devices, String want) {
    assertThat(NodeDeviceJson.encode(devices)).isEqualTo(want);
  }

  @Test
  void v18_profileCompactForm() {
    MigProfile p = new MigProfile("1g.5gb", 4864, 15, 1, 7, List.of(new MigPlacement(6, 1)));
    String json = NodeDeviceJson.encodeProfile(p);
    assertThat(json)
        .isEqualTo(
            "{\"name\":\"1g.5gb\",\"memoryMB\":4864,\"core\":15,\"sliceCount\":1,"
                + "\"placements\":[{\"start\":6,\"size\":1}]}");
    assertThat(NodeDeviceJson.decodeProfile(json))
        .isEqualTo(
            Decoded.ok(new MigProfile("1g.5gb", 4864, 15, 1, 0, List.of(new MigPlacement(6, 1)))));
  }

  static Stream<Arguments> decodes() {
    return Stream.of(
        arguments(
            "V15 trailing newline",
            "[{\"index\":1,\"id\":\"id-1\",\"count\":1,\"devmem\":1024,\"devcore\":10,\"type\":\"type\",\"health\":true}]\n",
            List.of(NodeDevice.of("id-1", 1, 1, 1024, 10, "type", 0, "", true))),
        arguments(
            "V16 two devices",
            "[{\"index\":1,\"id\":\"id-1\",\"count\":1,\"devmem\":1024,\"devcore\":10,\"type\":\"type\",\"health\":true},"
                + "{\"index\":2,\"id\":\"id-2\",\"count\":2,\"devmem\":4096,\"devcore\":20,\"type\":\"type2\",\"health\":false}]",
            List.of(
                NodeDevice.of("id-1", 1, 1, 1024, 10, "type", 0, "", true),
                NodeDevice.of("id-2", 2, 2, 4096, 20, "type2", 0, "", false))),
        arguments(
            "§1.3 explicit zeros",
            "[{\"id\":\"GPU-0\",\"count\":10,\"devmem\":8192,\"devcore\":100,\"type\":\"NVIDIA-A100\",\"numa\":0,"
                + "\"health\":true,\"index\":0,\"mode\":\"hami-core\"}]",
            List.of(NodeDevice.of("GPU-0", 0, 10, 8192, 100, "NVIDIA-A100", 0, "hami-core", true))),
        arguments(
            "V20 capitalised keys",
            "[{\"ID\":\"GPU-0\",\"Count\":4,\"Devmem\":8738,\"Devcore\":8,\"Type\":\"huawei.com/Ascend910\",\"Numa\":0,"
                + "\"Health\":true}]",
            List.of(NodeDevice.of("GPU-0", 0, 4, 8738, 8, "huawei.com/Ascend910", 0, "", true))),
        arguments(
            "v2.8 devicepairscore and unknown keys ignored",
            "[{\"id\":\"g\",\"devicepairscore\":{},\"devicevendor\":\"NVIDIA\",\"custominfo\":{\"a\":[1]},\"x\":null}]",
            List.of(NodeDevice.of("g", 0, 0, 0, 0, "", 0, "", false))),
        arguments(
            "MIG instanceCount is not read, whatever it holds",
            "[{\"id\":\"g\",\"migProfiles\":[{\"name\":\"1g.5gb\",\"memoryMB\":5120,\"core\":14,"
                + "\"sliceCount\":1,\"instanceCount\":7,\"placements\":[{\"start\":6,\"size\":1}]},"
                + "{\"name\":\"7g.40gb\",\"instanceCount\":\"x\"}]}]",
            List.of(
                new NodeDevice(
                    "g",
                    0,
                    0,
                    0,
                    0,
                    "",
                    0,
                    "",
                    List.of(
                        new MigProfile("1g.5gb", 5120, 14, 1, 0, List.of(new MigPlacement(6, 1))),
                        new MigProfile("7g.40gb", 0, 0, 0, 0, List.of())),
                    false))),
        arguments("V17 empty array", "[]", List.of()),
        arguments("null", "null", List.of()),
        arguments(
            "null fields are zero",
            "[{\"id\":null,\"count\":null,\"health\":null}]",
            List.of(NodeDevice.of("", 0, 0, 0, 0, "", 0, "", false))),
        arguments(
            "later duplicate wins",
            "[{\"count\":1,\"COUNT\":2}]",
            List.of(NodeDevice.of("", 0, 2, 0, 0, "", 0, "", false))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("decodes")
  void decode(String name, String input, List<NodeDevice> want) {
    assertThat(NodeDeviceJson.decode(input)).isEqualTo(Decoded.ok(want));
  }

  static Stream<Arguments> errors() {
    return Stream.of(
        arguments("not JSON", "[{", "", "invalid JSON"),
        arguments("object at top", "{\"id\":\"x\"}", "", "must be an array"),
        arguments("string count", "[{\"count\":\"10\"}]", "[0].count", "as int32"),
        arguments("float count", "[{\"count\":1.5}]", "[0].count", "as int32"),
        arguments(
            "count over int32", "[{\"id\":\"a\"},{\"count\":2147483648}]", "[1].count", "as int32"),
        arguments("negative index", "[{\"index\":-1}]", "[0].index", "uint"),
        arguments("string health", "[{\"health\":\"true\"}]", "[0].health", "as bool"),
        arguments("entry not object", "[1]", "[0]", "JSON object"),
        arguments("trailing garbage", "[] x", "", "invalid JSON"),
        arguments(
            "bad MIG placement",
            "[{\"migProfiles\":[{\"placements\":[{\"start\":\"a\"}]}]}]",
            "[0].migProfiles[0].placements[0].start",
            "as int32"),
        arguments("too deep", "[".repeat(100) + "]".repeat(100), "", "invalid JSON"),
        arguments(
            "huge number", "[{\"count\":1" + "0".repeat(200) + "}]", "[0].count", "as int32"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errors")
  void decodeError(String name, String input, String field, String message) {
    var e = NodeDeviceJson.decode(input).failure().orElseThrow();
    assertThat(e.field()).isEqualTo(field);
    assertThat(e.message()).contains(message);
  }
}
