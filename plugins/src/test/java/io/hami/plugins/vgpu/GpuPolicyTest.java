package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.Dev.dev;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The device order of each GPU policy, as HAMi v2.10's {@code policy.Less} answers. */
final class GpuPolicyTest {

  /** Device {@code a} (with {@code scoreA}) against {@code b}: whether a sorts first. */
  record Case(
      String name,
      String policy,
      boolean numaBind,
      Dev a,
      float scoreA,
      Dev b,
      float scoreB,
      boolean wantLess) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "mutex in a chain filters only: spread,mutex orders by score, not by used slots",
            "spread,mutex",
            false,
            dev("a").index(0).used(4),
            5f,
            dev("b").index(1).used(0),
            9f,
            false),
        new Case(
            "a chain ties on its keys fall back to the NVML index",
            "spread,mutex",
            false,
            dev("a").index(2).numa(0),
            0f,
            dev("b").index(3).numa(1),
            0f,
            true),
        new Case(
            "a chain tie ignores the NUMA node (HAMi rand0187)",
            "spread,mutex",
            false,
            dev("a").index(3).numa(0),
            0f,
            dev("b").index(1).numa(1),
            0f,
            false),
        new Case(
            "mutex with numa-bind orders by used slots first (HAMi rand0085)",
            "mutex",
            true,
            dev("a").index(1).numa(1).used(1),
            46.62f,
            dev("b").index(0).numa(0).used(0),
            0f,
            true),
        new Case(
            "binpack ties are equal: no index tie-break",
            "binpack",
            false,
            dev("a").index(0),
            0f,
            dev("b").index(3),
            0f,
            false),
        new Case(
            "numa alone breaks ties by NVML index",
            "numa",
            false,
            dev("a").index(0),
            8f,
            dev("b").index(2),
            34f,
            true));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void compare(Case c) {
    int cmp =
        GpuPolicy.parse(c.policy())
            .compare(c.a().build(), c.scoreA(), c.b().build(), c.scoreB(), c.numaBind());
    assertThat(cmp < 0).isEqualTo(c.wantLess());
  }

  @ParameterizedTest
  @MethodSource("cases")
  void mutexStaysAFitFilter(Case c) {
    assertThat(GpuPolicy.parse(c.policy()).mutex()).isEqualTo(c.policy().contains("mutex"));
  }
}
