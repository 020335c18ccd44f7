package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.Dev.dev;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Protocol §10.8 and §10.9: device filters and the NVIDIA fit. */
final class FitVectorsTest {

  record Case(
      String name,
      List<DeviceUsage> devices,
      VendorRequest req,
      DeviceFilter filter,
      GpuPolicy policy,
      PairScores pairs,
      @Nullable List<String> wantIds,
      String wantReasons) {
    @Override
    public String toString() {
      return name;
    }
  }

  static VendorRequest req(int nums, int mem, int cores) {
    return new VendorRequest("NVIDIA", nums, mem, VendorRequest.PERCENT_UNSET, cores);
  }

  static Case fit(String name, List<Dev> devs, VendorRequest r, String... ids) {
    return new Case(
        name,
        build(devs),
        r,
        DeviceFilter.NONE,
        GpuPolicy.SPREAD,
        PairScores.NONE,
        List.of(ids),
        "");
  }

  static Case fail(String name, List<Dev> devs, VendorRequest r, DeviceFilter f, String reasons) {
    return new Case(name, build(devs), r, f, GpuPolicy.SPREAD, PairScores.NONE, null, reasons);
  }

  static List<DeviceUsage> build(List<Dev> devs) {
    return devs.stream().map(Dev::build).toList();
  }

  static final PairScores TOPO =
      PairScores.of(
          Map.of(
              "dev-0", Map.of("dev-1", 100, "dev-2", 200),
              "dev-1", Map.of("dev-0", 100, "dev-2", 150),
              "dev-2", Map.of("dev-0", 200, "dev-1", 150)));

  static Stream<Case> cases() {
    GpuPolicy topo = GpuPolicy.parse("topology-aware");
    List<Dev> three = List.of(dev("dev-0").index(0), dev("dev-1").index(1), dev("dev-2").index(2));
    return Stream.of(
        fit(
            "V51 walks from the end",
            List.of(dev("dev-0").mem(128), dev("dev-1").mem(128)),
            req(1, 64, 50),
            "dev-1"),
        fail(
            "V52 insufficient memory",
            List.of(dev("dev-0").mem(128)),
            req(1, 512, 50),
            DeviceFilter.NONE,
            "1/1 CardInsufficientMemory"),
        fail(
            "V53 insufficient core",
            List.of(dev("dev-0").usedCores(100)),
            req(1, 512, 50),
            DeviceFilter.NONE,
            "1/1 CardInsufficientCore"),
        fail(
            "V54 type mismatch",
            List.of(dev("dev-0")),
            new VendorRequest("OtherType", 1, 0, 100, 0),
            DeviceFilter.NONE,
            "1/1 CardTypeMismatch"),
        fail(
            "V55 use-gpuuuid",
            List.of(dev("dev-1")),
            req(2, 0, 0),
            DeviceFilter.of(null, null, "dev-0", null, null),
            "1/1 CardUuidMismatch"),
        fail(
            "V56 nouse-gpuuuid",
            List.of(dev("dev-0")),
            req(2, 0, 0),
            DeviceFilter.of(null, null, null, "dev-0", null),
            "1/1 CardUuidMismatch"),
        fail(
            "V57 time slicing exhausted",
            List.of(dev("dev-0").used(100)),
            req(1, 0, 0),
            DeviceFilter.NONE,
            "1/1 CardTimeSlicingExhausted"),
        fit("V58 cores clamped to 100", List.of(dev("dev-0").mem(1280)), req(1, 512, 120), "dev-0"),
        fail(
            "V59 exclusive conflict",
            List.of(dev("dev-0").used(20).mem(1280)),
            req(1, 0, 100),
            DeviceFilter.NONE,
            "1/1 ExclusiveDeviceAllocateConflict"),
        fail(
            "V60 compute units exhausted",
            List.of(dev("dev-0").used(20).usedCores(100)),
            req(1, 0, 0),
            DeviceFilter.NONE,
            "1/1 CardComputeUnitsExhausted"),
        fail(
            "V61 partial pick",
            List.of(dev("dev-0").used(20).usedCores(10)),
            req(2, 512, 20),
            DeviceFilter.NONE,
            "1/1 AllocatedCardsInsufficientRequest"),
        fail(
            "V62 two of three",
            List.of(dev("dev-0").mem(1280), dev("dev-1").mem(1280)),
            req(3, 512, 20),
            DeviceFilter.NONE,
            "2/2 AllocatedCardsInsufficientRequest"),
        fit(
            "V63 percentage memory",
            List.of(dev("dev-0").used(20).usedCores(10).mem(1280)),
            new VendorRequest("NVIDIA", 1, 0, 10, 20),
            "dev-0"),
        fail(
            "V64 unhealthy",
            List.of(dev("dev-0").used(20).usedCores(10).mem(1280).unhealthy()),
            new VendorRequest("NVIDIA", 1, 0, 10, 20),
            DeviceFilter.NONE,
            "1/1 CardNotHealth"),
        fail(
            "cordoned",
            List.of(dev("dev-0").cordoned()),
            req(1, 0, 0),
            DeviceFilter.NONE,
            "1/1 CardCordoned"),
        fail(
            "vgpu-mode mismatch",
            List.of(dev("dev-0").mode("mig")),
            req(1, 0, 0),
            DeviceFilter.of(null, null, null, null, "hami-core"),
            "1/1 CardTypeMismatch"),
        new Case(
            "V65 topology n1 lowest total",
            build(three),
            req(1, 0, 0),
            DeviceFilter.NONE,
            topo,
            TOPO,
            List.of("dev-1"),
            ""),
        new Case(
            "V66 topology n2 highest pair",
            build(three),
            req(2, 0, 0),
            DeviceFilter.NONE,
            topo,
            TOPO,
            List.of("dev-2", "dev-0"),
            ""),
        new Case(
            "V67 topology all zero",
            build(three),
            req(2, 0, 0),
            DeviceFilter.NONE,
            topo,
            PairScores.NONE,
            List.of("dev-2", "dev-1"),
            ""),
        new Case(
            "mutex refuses used device",
            build(List.of(dev("dev-0").used(1))),
            req(1, 0, 0),
            DeviceFilter.NONE,
            GpuPolicy.parse("mutex"),
            PairScores.NONE,
            null,
            "1/1 ExclusiveDeviceAllocateConflict"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fit(Case c) {
    FitReasons reasons = new FitReasons(c.devices().size());
    List<DevicePick> picks =
        DeviceFitter.fit(
            c.devices(),
            c.req(),
            c.filter(),
            c.policy(),
            false,
            c.pairs(),
            DeviceFitter.QuotaCheck.NONE,
            reasons);
    if (c.wantIds() == null) {
      assertThat(picks).isNull();
      assertThat(reasons.message()).isEqualTo(c.wantReasons());
    } else {
      assertThat(picks).isNotNull();
      assertThat(picks).extracting(DevicePick::id).containsExactlyElementsOf(c.wantIds());
    }
  }

  @Test
  void fit_percentageResolvesMemoryPerDevice_V63() {
    List<DevicePick> picks =
        DeviceFitter.fit(
            build(List.of(dev("dev-0").used(20).usedCores(10).mem(1280))),
            new VendorRequest("NVIDIA", 1, 0, 10, 20),
            DeviceFilter.NONE,
            GpuPolicy.SPREAD,
            false,
            PairScores.NONE,
            DeviceFitter.QuotaCheck.NONE,
            new FitReasons(1));
    assertThat(picks).containsExactly(new DevicePick("dev-0", "NVIDIA", 128, 20));
  }

  @Test
  void combinations_V68() {
    assertThat(List.of(1, 2, 3, 4).stream().map(k -> DeviceFitter.combinations(4, k)))
        .containsExactly(4L, 6L, 4L, 1L);
  }

  @Test
  void fit_numaBindRestartsOnNumaChange() {
    // Walk order: dev-2 (numa 1), dev-1 (numa 0), dev-0 (numa 0): the partial pick on numa 1 is
    // dropped.
    List<DeviceUsage> devs =
        build(List.of(dev("dev-0").numa(0), dev("dev-1").numa(0), dev("dev-2").numa(1)));
    FitReasons reasons = new FitReasons(3);
    List<DevicePick> picks =
        DeviceFitter.fit(
            devs,
            req(2, 0, 0),
            DeviceFilter.NONE,
            GpuPolicy.SPREAD,
            true,
            PairScores.NONE,
            DeviceFitter.QuotaCheck.NONE,
            reasons);
    assertThat(picks).extracting(DevicePick::id).containsExactly("dev-1", "dev-0");
    assertThat(reasons.count(FitReason.NUMA_NOT_FIT)).isEqualTo(1);
  }

  @Test
  void fit_numaBindFailsAcrossNumaNodes() {
    List<DeviceUsage> devs = build(List.of(dev("dev-0").numa(0), dev("dev-1").numa(1)));
    FitReasons reasons = new FitReasons(2);
    assertThat(
            DeviceFitter.fit(
                devs,
                req(2, 0, 0),
                DeviceFilter.NONE,
                GpuPolicy.SPREAD,
                true,
                PairScores.NONE,
                DeviceFitter.QuotaCheck.NONE,
                reasons))
        .isNull();
    assertThat(reasons.message())
        .isEqualTo("1/2 AllocatedCardsInsufficientRequest, 1/2 NumaNotFit");
  }

  @Test
  void fit_topologyWithNumaBindDropsCandidatesWithoutNumaNotFit() {
    // HAMi v2.10 (rand0067): dev-2 on numa 1 is a candidate, dev-1 is unhealthy, dev-0 on numa 0
    // drops the candidate and lacks memory; the candidate dropped is no NumaNotFit.
    List<DeviceUsage> devs =
        build(
            List.of(
                dev("dev-0").numa(0).mem(4096).usedMem(512),
                dev("dev-1").numa(1).unhealthy(),
                dev("dev-2").numa(1).mem(4096)));
    FitReasons reasons = new FitReasons(3);
    assertThat(
            DeviceFitter.fit(
                devs,
                new VendorRequest("NVIDIA", 3, 0, 100, 0),
                DeviceFilter.NONE,
                GpuPolicy.parse("topology-aware"),
                true,
                PairScores.NONE,
                DeviceFitter.QuotaCheck.NONE,
                reasons))
        .isNull();
    assertThat(reasons.message()).isEqualTo("1/3 CardInsufficientMemory, 1/3 CardNotHealth");
  }

  record Check(String name, Map<String, String> annos, String id, boolean want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Check> uuidChecks() {
    return Stream.of(
        new Check("no annotations", Map.of(), "abc", true),
        new Check("use contains", Map.of("U", "abc,123"), "abc", true),
        new Check("use is exact", Map.of("U", "abc,123"), "1abc", false),
        new Check("nouse excludes", Map.of("N", "abc,123"), "abc", false),
        new Check("nouse is exact", Map.of("N", "abc,123"), "1abc", true),
        new Check("nouse after use", Map.of("U", "abc,123", "N", "abc"), "abc", false),
        new Check("use with other nouse", Map.of("U", "abc,123", "N", "456"), "abc", true),
        new Check("items trimmed", Map.of("U", " abc , 123 "), "abc", true),
        new Check("empty use", Map.of("U", ""), "abc", true),
        new Check("blank use", Map.of("U", "   "), "abc", true),
        new Check("empty nouse", Map.of("N", ""), "abc", true));
  }

  @ParameterizedTest(name = "V49 {0}")
  @MethodSource("uuidChecks")
  void uuidFilter_V49(Check c) {
    DeviceFilter f = DeviceFilter.of(null, null, c.annos().get("U"), c.annos().get("N"), null);
    assertThat(f.uuidAllowed(c.id())).isEqualTo(c.want());
  }

  static Stream<Check> typeChecks() {
    return Stream.of(
        new Check("no annotations", Map.of(), "NVIDIA-A100", true),
        new Check("use matches one", Map.of("U", "A100,V100"), "NVIDIA-A100", true),
        new Check("use matches none", Map.of("U", "V100"), "NVIDIA-A100", false),
        new Check("nouse matches", Map.of("N", "A100"), "NVIDIA-A100", false),
        new Check("nouse other", Map.of("N", "V100"), "NVIDIA-A100", true),
        new Check("empty use", Map.of("U", ""), "NVIDIA-A100", true),
        new Check("blank nouse", Map.of("N", "  "), "NVIDIA-A100", true),
        new Check("case-insensitive", Map.of("U", "a100"), "NVIDIA-A100", true));
  }

  @ParameterizedTest(name = "V50 {0}")
  @MethodSource("typeChecks")
  void typeFilter_V50(Check c) {
    DeviceFilter f = DeviceFilter.of(c.annos().get("U"), c.annos().get("N"), null, null, null);
    assertThat(f.typeAllowed(dev("x").type(c.id()).build())).isEqualTo(c.want());
  }
}
