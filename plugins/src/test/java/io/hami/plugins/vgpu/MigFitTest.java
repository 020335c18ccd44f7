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
            "fits smallest profile",
            List.of(a100("g0")),
            req(1, 4000),
            List.of(pick("g0", P1G5, at(0, 1))),
            ""),
        new Case(
            "picks smallest profile at least the request",
            List.of(a100("g0")),
            req(1, 9000),
            List.of(pick("g0", P2G10, at(0, 2))),
            ""),
        new Case(
            "exact profile memory fits",
            List.of(a100("g0")),
            req(1, 19968),
            List.of(pick("g0", P3G20, at(0, 4))),
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
            List.of(pick("g1", P3G20, at(4, 4)), pick("g0", P3G20, at(0, 4))),
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
