package io.hami.nodeagent.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hami.model.device.MigPlacement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FakeNvmlMigTest {
  private static final String A100_80 = "1xNVIDIA A100-SXM4-80GB:81920MiB,mig";

  @Test
  void migGpuOffersTheA100Profiles() {
    FakeNvml nvml = FakeNvml.fromSpec(A100_80 + "+1xNVIDIA A100-SXM4-40GB:40960MiB,mig", "n");

    assertThat(nvml.devices()).allMatch(GpuInfo::migEnabled);
    assertThat(nvml.migProfiles(0))
        .extracting(MigProfileInfo::name, MigProfileInfo::instanceCount)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("1g.10gb", 7),
            org.assertj.core.groups.Tuple.tuple("1g.20gb", 4),
            org.assertj.core.groups.Tuple.tuple("2g.20gb", 3),
            org.assertj.core.groups.Tuple.tuple("3g.40gb", 2),
            org.assertj.core.groups.Tuple.tuple("4g.40gb", 1),
            org.assertj.core.groups.Tuple.tuple("7g.80gb", 1));
    assertThat(nvml.migProfiles(0).get(0).placements())
        .extracting(MigPlacement::start)
        .containsExactly(0, 1, 2, 3, 4, 5, 6);
    assertThat(nvml.migProfiles(1)).extracting(MigProfileInfo::name).startsWith("1g.5gb");
  }

  @Test
  void gpuWithoutMigModeOffersNoProfiles() throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec("1xA100:81920MiB", "n");
    assertThat(nvml.migProfiles(0)).isEmpty();
    assertThatThrownBy(() -> nvml.createMigInstance(0, 19, new MigPlacement(0, 1)))
        .isInstanceOf(NvmlException.class)
        .hasMessageContaining("MIG mode is off");
  }

  /** Names follow go-nvlib's rounding to an eighth of the GPU's memory. */
  @Test
  void profileNamesRoundToAnEighthOfTheGpu() {
    assertThat(MigProfileInfo.nameOf(1, 4864, 40960, "")).isEqualTo("1g.5gb");
    assertThat(MigProfileInfo.nameOf(1, 9728, 81920, "")).isEqualTo("1g.10gb");
    assertThat(MigProfileInfo.nameOf(3, 40192, 81920, "")).isEqualTo("3g.40gb");
    assertThat(MigProfileInfo.nameOf(7, 80896, 81920, "")).isEqualTo("7g.80gb");
    assertThat(MigProfileInfo.nameOf(1, 9728, 81920, "+me")).isEqualTo("1g.10gb+me");
  }

  record Case(String name, int profileId, MigPlacement at, int wantCode) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> creates() {
    // A 1g.10gb instance already sits at slice 2.
    return Stream.of(
        new Case("free 1g.10gb slot", 19, new MigPlacement(0, 1), 0),
        new Case("free 2g.20gb slot", 14, new MigPlacement(4, 2), 0),
        new Case("same slot", 19, new MigPlacement(2, 1), NvmlException.INSUFFICIENT_RESOURCES),
        new Case(
            "overlapping 2g", 14, new MigPlacement(2, 2), NvmlException.INSUFFICIENT_RESOURCES),
        new Case("overlapping 7g", 0, new MigPlacement(0, 8), NvmlException.INSUFFICIENT_RESOURCES),
        new Case("illegal start", 14, new MigPlacement(1, 2), NvmlException.INVALID_ARGUMENT),
        new Case("unknown profile", 42, new MigPlacement(0, 1), NvmlException.INVALID_ARGUMENT));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("creates")
  void createRefusesTakenOrIllegalPlacements(Case c) throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec(A100_80, "n");
    MigInstance first = nvml.createMigInstance(0, 19, new MigPlacement(2, 1));

    if (c.wantCode() == 0) {
      MigInstance made = nvml.createMigInstance(0, c.profileId(), c.at());
      assertThat(made.usable()).isTrue();
      assertThat(made.migUuid()).startsWith("MIG-").isNotEqualTo(first.migUuid());
      assertThat(made.gpuInstanceId()).isNotEqualTo(first.gpuInstanceId());
      assertThat(nvml.migInstances(0)).hasSize(2);
    } else {
      assertThatThrownBy(() -> nvml.createMigInstance(0, c.profileId(), c.at()))
          .isInstanceOfSatisfying(
              NvmlException.class, e -> assertThat(e.code()).isEqualTo(c.wantCode()));
      assertThat(nvml.migInstances(0)).containsExactly(first);
    }
  }

  @Test
  void destroyFreesThePlacement() throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec(A100_80, "n");
    MigInstance a = nvml.createMigInstance(0, 0, new MigPlacement(0, 8));

    nvml.destroyMigInstance(0, a.gpuInstanceId(), a.computeInstanceId());

    assertThat(nvml.migInstances(0)).isEmpty();
    MigInstance b = nvml.createMigInstance(0, 19, new MigPlacement(0, 1));
    assertThat(b.migUuid()).isNotEqualTo(a.migUuid());
    assertThatThrownBy(() -> nvml.destroyMigInstance(0, a.gpuInstanceId() + 5, 0))
        .isInstanceOfSatisfying(
            NvmlException.class, e -> assertThat(e.code()).isEqualTo(NvmlException.NOT_FOUND));
    assertThat(List.copyOf(nvml.migInstances(0))).containsExactly(b);
  }
}
