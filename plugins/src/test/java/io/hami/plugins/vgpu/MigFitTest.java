package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.Dev.dev;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Protocol §8.3 and §6.6 check 13: dynamic MIG profile and placement choice in the device fit. */
final class MigFitTest {

  /** An A100-40GB's profiles, placements as NVML reports them. */
  static final MigProfile P1G5 =
      profile(
          "1g.5gb", 4864, 14, 1, at(0, 1), at(1, 1), at(2, 1), at(3, 1), at(4, 1), at(5, 1),
          at(6, 1));

  static final MigProfile P2G10 = profile("2g.10gb", 9856, 28, 2, at(0, 2), at(2, 2), at(4, 2));
  static final MigProfile P3G20 = profile("3g.20gb", 19968, 42, 4, at(0, 4), at(4, 4));
  static final MigProfile P7G40 = profile("7g.40gb", 40192, 100, 8, at(0, 8));

  static final MigProfile SMALL = profile("1g.10gb", 9984, 25, 1, at(0, 1));
  static final MigProfile LARGE = profile("2g.20gb", 19968, 50, 2, at(2, 2));

  static MigPlacement at(int start, int size) {
    return new MigPlacement(start, size);
  }

  static MigProfile profile(String name, int mem, int core, int slices, MigPlacement... at) {
    return new MigProfile(name, mem, core, slices, 0, List.of(at));
  }

  static Dev a100(String id) {
    // Offered order deliberately not sorted by memory.
    return dev(id).mem(40960).count(7).migProfiles(P7G40, P3G20, P1G5, P2G10);
  }

  record Case(
      String name,
      List<Dev> devs,
      VendorRequest req,
      @Nullable List<DevicePick> want,
      String wantReasons) {
    @Override
    public String toString() {
      return name;
    }
  }

  static VendorRequest req(int nums, int mem) {
    return new VendorRequest("NVIDIA", nums, mem, VendorRequest.PERCENT_UNSET, 0);
  }

  static DevicePick pick(String id, MigProfile p, MigPlacement at) {
    return new DevicePick(id, "NVIDIA", p.memoryMB(), p.core(), new DevicePick.Mig(p.name(), at));
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "fits smallest profile, 1g from the highest start",
            List.of(a100("g0")),
            req(1, 4000),
            List.of(pick("g0", P1G5, at(6, 1))),
            ""),
        new Case(
            "picks smallest profile at least the request",
            List.of(a100("g0")),
            req(1, 9000),
            List.of(pick("g0", P2G10, at(0, 2))),
            ""),
        new Case(
            "exact profile memory fits, 3g from the highest start",
            List.of(a100("g0")),
            req(1, 19968),
            List.of(pick("g0", P3G20, at(4, 4))),
            ""),
        new Case(
            "occupied placement moves to the next",
            List.of(a100("g0").migUsed(at(0, 2))),
            req(1, 9000),
            List.of(pick("g0", P2G10, at(2, 2))),
            ""),
        new Case(
            "partial overlap counts as occupied",
            List.of(a100("g0").migUsed(at(1, 1), at(4, 1))),
            req(1, 9000),
            List.of(pick("g0", P2G10, at(2, 2))),
            ""),
        new Case(
            "full placements fall to a larger profile",
            List.of(dev("g0").mem(20480).count(4).migProfiles(SMALL, LARGE).migUsed(at(0, 1))),
            req(1, 5000),
            List.of(pick("g0", LARGE, at(2, 2))),
            ""),
        new Case(
            "no free placement",
            List.of(a100("g0").migUsed(at(0, 4), at(4, 1))),
            req(1, 19000),
            null,
            "1/1 CardMigTopologyInfeasible"),
        new Case(
            "request above every profile",
            List.of(a100("g0").count(7)),
            req(1, 40193),
            null,
            "1/1 CardMigTopologyInfeasible"),
        new Case(
            "two instances on one GPU",
            List.of(a100("g0")),
            req(2, 9000),
            List.of(pick("g0", P2G10, at(0, 2)), pick("g0", P2G10, at(2, 2))),
            ""),
        new Case(
            "second instance spills to the next GPU",
            List.of(a100("g0"), a100("g1").migUsed(at(0, 4))),
            req(2, 19000),
            List.of(pick("g1", P3G20, at(4, 4)), pick("g0", P3G20, at(4, 4))),
            ""),
        new Case(
            "shared device beside a MIG device keeps the plain pick",
            List.of(dev("s0").mem(1024)),
            req(1, 512),
            List.of(new DevicePick("s0", "NVIDIA", 512, 0)),
            ""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fit(Case c) {
    List<DeviceUsage> devices = c.devs().stream().map(Dev::build).toList();
    FitReasons reasons = new FitReasons(devices.size());
    List<DevicePick> picks =
        DeviceFitter.fit(
            devices,
            c.req(),
            DeviceFilter.NONE,
            GpuPolicy.SPREAD,
            false,
            PairScores.NONE,
            DeviceFitter.QuotaCheck.NONE,
            reasons);
    if (c.want() == null) {
      assertThat(picks).isNull();
      assertThat(reasons.message()).isEqualTo(c.wantReasons());
    } else {
      assertThat(picks).containsExactlyElementsOf(c.want());
    }
  }

  /** An A100-40GB's full profile list as HAMi v2.10's recorded nodes report it. */
  static final MigProfile R1G5 =
      profile(
          "1g.5gb", 4864, 14, 1, at(0, 1), at(1, 1), at(2, 1), at(3, 1), at(4, 1), at(5, 1),
          at(6, 1));

  static final MigProfile R1G10 =
      profile("1g.10gb", 9856, 14, 1, at(0, 2), at(2, 2), at(4, 2), at(6, 2));
  static final MigProfile R2G10 = profile("2g.10gb", 9856, 28, 2, at(0, 2), at(2, 2), at(4, 2));
  static final MigProfile R3G20 = profile("3g.20gb", 19968, 42, 3, at(0, 4), at(4, 4));
  static final MigProfile R4G20 = profile("4g.20gb", 19968, 57, 4, at(0, 4));
  static final MigProfile R7G40 = profile("7g.40gb", 40192, 100, 7, at(0, 8));

  static Dev recordedA100(String id) {
    // Offered with 2g.10gb before 1g.10gb: the slice count, not the offered order, breaks the tie.
    return dev(id).mem(40960).count(7).migProfiles(R7G40, R2G10, R1G5, R1G10, R4G20, R3G20);
  }

  /** A case taken from HAMi v2.10's recorded {@code nvidia.Fit} answers, named after the record. */
  record RecordCase(
      String name,
      List<Dev> devs,
      VendorRequest req,
      GpuPolicy policy,
      @Nullable List<DevicePick> want,
      String wantReasons) {
    @Override
    public String toString() {
      return name;
    }
  }

  static VendorRequest pct(int nums, int percent) {
    return new VendorRequest("NVIDIA", nums, 0, percent, 0);
  }

  static Stream<RecordCase> recordCases() {
    MigProfile tiny = profile("1g.5gb", 5120, 14, 0, at(6, 1));
    return Stream.of(
        // TestOracleRandomCalcScore/rand0005 (fitInDevices): 1g instances fill from the top.
        new RecordCase(
            "1g instances take the highest free starts",
            List.of(recordedA100("g0")),
            req(3, 1000),
            GpuPolicy.BINPACK,
            List.of(
                pick("g0", R1G5, at(6, 1)), pick("g0", R1G5, at(5, 1)), pick("g0", R1G5, at(4, 1))),
            ""),
        // TestOracleRandomCalcScore/rand0187 (fitInDevices): 1g.10gb@6+2, then @4+2.
        new RecordCase(
            "equal memory prefers the lower slice count",
            List.of(recordedA100("g0")),
            req(2, 9000),
            GpuPolicy.SPREAD,
            List.of(pick("g0", R1G10, at(6, 2)), pick("g0", R1G10, at(4, 2))),
            ""),
        // TestOracleRandomCalcScore/rand0000: two instances on one idle GPU under mutex.
        new RecordCase(
            "mutex does not count the pod's own earlier instance",
            List.of(recordedA100("g0")),
            req(2, 1000),
            GpuPolicy.parse("spread,mutex"),
            List.of(pick("g0", R1G5, at(6, 1)), pick("g0", R1G5, at(5, 1))),
            ""),
        // TestOracleRandomCalcScore/rand0364: 42 cores used, 2 x 50 cores asked.
        new RecordCase(
            "the pod's own earlier instance takes no cores from the next",
            List.of(
                recordedA100("g0")
                    .used(3)
                    .usedMem(14592)
                    .usedCores(42)
                    .migUsed(at(0, 1), at(4, 1), at(6, 1))),
            new VendorRequest("NVIDIA", 2, 3000, VendorRequest.PERCENT_UNSET, 50),
            GpuPolicy.BINPACK,
            List.of(
                new DevicePick("g0", "NVIDIA", 4864, 14, new DevicePick.Mig("1g.5gb", at(5, 1))),
                new DevicePick("g0", "NVIDIA", 4864, 14, new DevicePick.Mig("1g.5gb", at(3, 1)))),
            ""),
        // TestOracleRandomCalcScore/rand0445 shape: whole-card cores twice on one idle MIG GPU.
        new RecordCase(
            "exclusive cores do not conflict with the pod's own instance",
            List.of(recordedA100("g0")),
            new VendorRequest("NVIDIA", 2, 1000, VendorRequest.PERCENT_UNSET, 100),
            GpuPolicy.SPREAD,
            List.of(pick("g0", R1G5, at(6, 1)), pick("g0", R1G5, at(5, 1))),
            ""),
        // TestOracleRandomCalcScore/rand0000: 3 x 25% = 3 x 10240 MiB, two 3g.20gb placements.
        new RecordCase(
            "instances beyond the placements refuse with the pick count",
            List.of(recordedA100("g0")),
            pct(3, 25),
            GpuPolicy.SPREAD,
            null,
            "1/1 CardMigTopologyInfeasible, 2/1 AllocatedCardsInsufficientRequest"),
        // TestFitInDevicesRejectsInsufficientMigPlacementsOnSingleGPU.
        new RecordCase(
            "one placement for two instances",
            List.of(dev("GPU-a").mem(40960).count(7).migProfiles(tiny)),
            req(2, 4000),
            GpuPolicy.SPREAD,
            null,
            "1/1 AllocatedCardsInsufficientRequest, 1/1 CardMigTopologyInfeasible"),
        // TestFitUsesEffectivePercentageMemoryForMigPlacement: 25% of 40960 needs 3g.20gb.
        new RecordCase(
            "a percentage resolves against the GPU's memory before the profile choice",
            List.of(
                dev("GPU-a")
                    .mem(40960)
                    .count(7)
                    .used(3)
                    .usedMem(30720)
                    .migProfiles(
                        profile("1g.5gb", 5120, 14, 1, at(0, 1), at(1, 1), at(6, 1)),
                        profile("2g.10gb", 10240, 28, 2, at(0, 2), at(2, 2), at(4, 2)),
                        profile("3g.20gb", 20480, 42, 3, at(0, 4), at(4, 4)))
                    .migUsed(at(0, 2), at(2, 2), at(4, 2))),
            pct(1, 25),
            GpuPolicy.SPREAD,
            null,
            "1/1 CardMigTopologyInfeasible"),
        // TestFit_MigPercentageRequestRejectsUndersizedTemplate: MIG mode, no dynamic profiles.
        new RecordCase(
            "a MIG-mode GPU without profiles is refused, not shared",
            List.of(dev("dev-0").mode("mig").mem(8192).count(1)),
            new VendorRequest("NVIDIA", 1, 0, 50, 10),
            GpuPolicy.SPREAD,
            null,
            "1/1 CardMigTopologyInfeasible"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("recordCases")
  void fit_asHamiRecorded(RecordCase c) {
    List<DeviceUsage> devices = c.devs().stream().map(Dev::build).toList();
    FitReasons reasons = new FitReasons(devices.size());
    List<DevicePick> picks =
        DeviceFitter.fit(
            devices,
            c.req(),
            DeviceFilter.NONE,
            c.policy(),
            false,
            PairScores.NONE,
            DeviceFitter.QuotaCheck.NONE,
            reasons);
    if (c.want() == null) {
      assertThat(picks).isNull();
      assertThat(reasons.message()).isEqualTo(c.wantReasons());
    } else {
      assertThat(picks).containsExactlyElementsOf(c.want());
    }
  }

  /** TestFitInDevicesAllowsMultipleMigPlacementsOnSingleGPU: two instances, one GPU on the node. */
  @Test
  void placer_migRequestIsExemptFromTheDeviceCount() {
    MigProfile p =
        profile(
            "1g.5gb", 5120, 14, 0, at(0, 1), at(1, 1), at(2, 1), at(3, 1), at(4, 1), at(5, 1),
            at(6, 1));
    NodeDevices node =
        NodeDevices.of("n", List.of(dev("GPU-a").mem(40960).count(7).migProfiles(p).build()));
    PodRequests reqs = PodRequests.single(req(2, 4000));
    PodGpuOptions opts =
        PodGpuOptions.DEFAULT.withFilter(DeviceFilter.of(null, null, null, null, "mig"));
    NodePlacer placer = NodePlacer.standard();

    Placement placed = placer.place(node, reqs, opts, null);

    assertThat(placed.fits()).isTrue();
    assertThat(placed.containers())
        .containsExactly(
            ImmutableList.of(
                new DevicePick("GPU-a", "NVIDIA", 5120, 14, new DevicePick.Mig("1g.5gb", at(6, 1))),
                new DevicePick(
                    "GPU-a", "NVIDIA", 5120, 14, new DevicePick.Mig("1g.5gb", at(5, 1)))));
    assertThat(placer.feasible(node, reqs, opts)).isNull();
    assertThat(placer.feasible(node, reqs, PodGpuOptions.DEFAULT)).isNull();
  }

  /**
   * TestFitInDevicesRetainsPhysicalCountCheckForNonMigGPU and TestOracleRandomCalcScore/rand0008: a
   * pod whose vgpu-mode rules MIG out keeps the device count check on a node with a MIG GPU.
   */
  @Test
  void placer_nonMigModeKeepsTheDeviceCount() {
    NodeDevices node = NodeDevices.of("n", List.of(recordedA100("g0").build()));
    PodRequests reqs = PodRequests.single(req(2, 1000));
    PodGpuOptions opts =
        PodGpuOptions.DEFAULT.withFilter(DeviceFilter.of(null, null, null, null, "hami-core,mps"));
    NodePlacer placer = NodePlacer.standard();

    Placement placed = placer.place(node, reqs, opts, null);

    assertThat(placed.fits()).isFalse();
    assertThat(placed.reasons().codes()).containsExactly("NodeInsufficientDevice");
    assertThat(placer.feasible(node, reqs, opts).codes()).containsExactly("NodeInsufficientDevice");
  }

  @Test
  void placer_appContainersTakeSeparatePlacementsOnOneGpu() {
    NodeDevices node = NodeDevices.of("n", List.of(a100("g0").build()));
    PodRequests reqs = PodRequests.of(List.of(List.of(req(1, 9000)), List.of(req(1, 9000))), 0);
    Placement p = NodePlacer.standard().place(node, reqs, PodGpuOptions.DEFAULT, null);
    assertThat(p.fits()).isTrue();
    assertThat(p.containers())
        .containsExactly(
            ImmutableList.of(pick("g0", P2G10, at(0, 2))),
            ImmutableList.of(pick("g0", P2G10, at(2, 2))));
    assertThat(p.usage().byDevice().get("g0").mig()).containsExactly(at(0, 2), at(2, 2));
  }

  @Test
  void placer_fullGpuRefusesWithMigReason() {
    NodeDevices node = NodeDevices.of("n", List.of(a100("g0").migUsed(at(0, 8)).build()));
    Placement p =
        NodePlacer.standard()
            .place(node, PodRequests.single(req(1, 4000)), PodGpuOptions.DEFAULT, null);
    assertThat(p.fits()).isFalse();
    assertThat(p.reasons().message()).isEqualTo("1/1 CardMigTopologyInfeasible");
  }
}
