package io.hami.model.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §5.2 and §10.6: NVIDIA request derivation. */
class RequestRuleTest {

  private static final String GPU = "nvidia.com/gpu";
  private static final String MEM = "nvidia.com/gpumem";
  private static final String PCT = "nvidia.com/gpumem-percentage";
  private static final String CORES = "nvidia.com/gpucores";

  private static final RequestRule NV = RequestRule.NVIDIA_DEFAULTS;

  private static ContainerRequest req(int nums, int mem, int pct, int cores) {
    return new ContainerRequest(nums, "NVIDIA", mem, pct, cores);
  }

  private static final ContainerRequest NONE = ContainerRequest.none("NVIDIA");

  private static ContainerResources limits(String... kv) {
    var m = new LinkedHashMap<String, String>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return ContainerResources.ofLimits(m);
  }

  static Stream<Arguments> cases() {
    RequestRule factor2 = new RequestRule(ResourceNames.NVIDIA, "NVIDIA", 2, 0, 0);
    RequestRule defMem = new RequestRule(ResourceNames.NVIDIA, "NVIDIA", 1, 512, 0);
    return Stream.of(
        arguments("V36 gpu 1", NV, limits(GPU, "1"), req(1, 0, 100, 0)),
        arguments("V37 gpu 2 gpumem 4096", NV, limits(GPU, "2", MEM, "4096"), req(2, 4096, 101, 0)),
        arguments("V38 pct 50", NV, limits(GPU, "1", PCT, "50"), req(1, 0, 50, 0)),
        arguments("V39 pct 150", NV, limits(GPU, "1", PCT, "150"), req(1, 0, 100, 0)),
        arguments("V39 pct 2^32+50", NV, limits(GPU, "1", PCT, "4294967346"), req(1, 0, 100, 0)),
        arguments("V39 pct 101", NV, limits(GPU, "1", PCT, "101"), req(1, 0, 100, 0)),
        arguments("V40 cores 50", NV, limits(GPU, "1", CORES, "50"), req(1, 0, 100, 50)),
        arguments("V41 no gpu", NV, limits(MEM, "1024"), NONE),
        arguments(
            "V42 requests only",
            NV,
            new ContainerResources(Map.of(), Map.of(GPU, "1")),
            req(1, 0, 100, 0)),
        arguments("V43 pct 0 in limits", NV, limits(GPU, "1", PCT, "0"), req(1, 0, 100, 0)),
        arguments(
            "V43 pct 0 in requests",
            NV,
            new ContainerResources(Map.of(GPU, "1"), Map.of(PCT, "0")),
            req(1, 0, 100, 0)),
        arguments("V43 pct -1", NV, limits(GPU, "1", PCT, "-1"), req(1, 0, 100, 0)),
        arguments(
            "V44 gpumem 2000 pct 0",
            NV,
            limits(GPU, "1", MEM, "2000", PCT, "0"),
            req(1, 2000, 101, 0)),
        arguments("V45 gpumem 16Gi", NV, limits(GPU, "1", MEM, "16Gi"), NONE),
        arguments("V45 gpumem 16.0Gi", NV, limits(GPU, "1", MEM, "16.0Gi"), NONE),
        arguments("V46 factor 2", factor2, limits(GPU, "1", MEM, "1024"), req(1, 2048, 101, 0)),
        arguments("V46 factor 2 1Gi", factor2, limits(GPU, "1", MEM, "1Gi"), NONE),
        arguments("V47 default memory", defMem, limits(GPU, "1"), req(1, 512, 101, 0)),
        arguments(
            "V47 default memory pct 0", defMem, limits(GPU, "1", PCT, "0"), req(1, 512, 101, 0)),
        arguments(
            "V47 default memory gpumem 0", defMem, limits(GPU, "1", MEM, "0"), req(1, 512, 101, 0)),
        arguments(
            "limits win over requests",
            NV,
            new ContainerResources(Map.of(GPU, "2"), Map.of(GPU, "1")),
            req(2, 0, 100, 0)),
        arguments("fractional count", NV, limits(GPU, "500m"), NONE),
        arguments("negative gpumem", NV, limits(GPU, "1", MEM, "-5"), NONE),
        arguments("gpumem 1k is 1000", NV, limits(GPU, "1", MEM, "1k"), req(1, 1000, 101, 0)),
        arguments(
            "gpumem int32 max",
            NV,
            limits(GPU, "1", MEM, "2147483647"),
            req(1, 2147483647, 101, 0)),
        arguments("gpumem int32 max + 1", NV, limits(GPU, "1", MEM, "2147483648"), NONE),
        arguments("huge exponent", NV, limits(GPU, "1e999999999"), NONE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void derive(String name, RequestRule rule, ContainerResources r, ContainerRequest want) {
    assertThat(rule.deriveOrNone(r)).isEqualTo(want);
  }

  static Stream<Arguments> exclusive() {
    RequestRule noMemName =
        new RequestRule(new ResourceNames(GPU, "", PCT, CORES, ""), "NVIDIA", 1, 0, 0);
    RequestRule custom =
        new RequestRule(
            new ResourceNames("x.com/gpu", "x.com/mem", "x.com/pct", "x.com/cores", ""),
            "NVIDIA",
            1,
            0,
            0);
    return Stream.of(
        arguments("V48 gpu 1 pct 100 limits", NV, limits(GPU, "1", PCT, "100"), true),
        arguments(
            "V48 gpu 1 pct 100 requests",
            NV,
            new ContainerResources(Map.of(GPU, "1"), Map.of(PCT, "100")),
            true),
        arguments("V48 gpu 1 alone", NV, limits(GPU, "1"), true),
        arguments("V48 empty memory name", noMemName, limits(GPU, "1", PCT, "100"), true),
        arguments("V48 custom names", custom, limits("x.com/gpu", "1"), true),
        arguments("V48 pct 50", NV, limits(GPU, "1", PCT, "50"), false),
        arguments("V48 gpumem 8192", NV, limits(GPU, "1", MEM, "8192"), false),
        arguments("V48 cores 70 kept", NV, limits(GPU, "1", CORES, "70"), false),
        arguments("V48 cores 55 kept", NV, limits(GPU, "1", PCT, "100", CORES, "55"), false),
        arguments("no gpu", NV, limits(MEM, "1"), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("exclusive")
  void wantsExclusiveCores(String name, RequestRule rule, ContainerResources r, boolean want) {
    assertThat(rule.wantsExclusiveCores(r)).isEqualTo(want);
  }

  static Stream<Arguments> errorFields() {
    return Stream.of(
        arguments("gpumem 16Gi", limits(GPU, "1", MEM, "16Gi"), MEM, "16Gi"),
        arguments("count text", limits(GPU, "one"), GPU, "one"),
        arguments("cores fraction", limits(GPU, "1", CORES, "0.5"), CORES, "0.5"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errorFields")
  void errorsNameResourceAndValue(String name, ContainerResources r, String field, String value) {
    var e = NV.derive(r).failure().orElseThrow();
    assertThat(e.field()).isEqualTo(field);
    assertThat(e.value()).isEqualTo(value);
  }
}
