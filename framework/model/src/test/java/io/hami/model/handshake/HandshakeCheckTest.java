package io.hami.model.handshake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.LocalDateTime;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §3 and §10.4: handshake values and health checks. */
class HandshakeCheckTest {

  private static final LocalDateTime NOW = LocalDateTime.of(2026, 8, 21, 8, 20, 39);

  static Stream<Arguments> generic() {
    return Stream.of(
        arguments("V27 future stamp", "Requesting_2128-12-02 00:00:00", 0L, true, false),
        arguments("V28 no timestamp", "Requesting", 0L, true, false),
        arguments("V28 bad timestamp", "Requesting_not-a-timestamp", 0L, true, false),
        arguments("V29 stale, no allocatable", "Requesting_2024-01-02 00:00:00", 0L, false, false),
        arguments("V30 stale, allocatable 8", "Requesting_2024-01-02 00:00:00", 8L, true, false),
        arguments("fresh stamp", "Requesting_2026-08-21 08:20:00", 0L, true, false),
        arguments(
            "exactly 60 s old is expired", "Requesting_2026-08-21 08:19:39", 0L, false, false),
        arguments("legacy dotted layout", "Requesting_2026.08.21 08:20:00", 0L, true, false),
        arguments(
            "report with space",
            "Reported 2024-01-23 04:30:04.434037031 +0000 UTC m=+1104711.777756895",
            0L,
            true,
            true),
        arguments("vendor report", "Reported_2026-08-21 08:20:00", 0L, true, true),
        arguments("leftover Deleted", "Deleted_2026-08-21 08:20:00", 0L, true, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("generic")
  void check(String name, String value, long allocatable, boolean healthy, boolean refresh) {
    HealthVerdict v = HandshakeCheck.check(Optional.of(value), NOW, allocatable);
    assertThat(v.healthy()).isEqualTo(healthy);
    assertThat(v.refresh()).isEqualTo(refresh);
    assertThat(v.action())
        .isEqualTo(
            !healthy
                ? HealthVerdict.Action.CLEAN_UP
                : refresh ? HealthVerdict.Action.REQUEST : HealthVerdict.Action.NONE);
  }

  @Test
  void missingKeyRequestsReport() {
    assertThat(HandshakeCheck.check(Optional.empty(), NOW, 0)).isEqualTo(HealthVerdict.REPORTED);
  }

  static Stream<Arguments> nvidia() {
    String fresh = Handshake.requesting(NOW);
    String stale = Handshake.requesting(NOW.minusHours(2));
    Optional<String> reg = Optional.of("[{\"id\":\"GPU-0\",\"health\":true}]");
    Optional<String> regChanged = Optional.of("[{\"id\":\"GPU-0\"}]");
    return Stream.of(
        arguments("V31 allocatable 0, fresh", fresh, 0L, 0L, reg, reg, true, false),
        arguments("V31 allocatable 0, 2 h old", stale, 0L, 0L, reg, reg, false, false),
        arguments("V32 register changed", stale, 4L, 4L, regChanged, reg, true, true),
        arguments("V32 register removed", stale, 4L, 4L, Optional.empty(), reg, true, true),
        arguments("V32 unchanged", stale, 4L, 4L, reg, reg, true, false),
        arguments("allocatable dropped to 0", fresh, 0L, 4L, reg, reg, false, false),
        arguments("allocatable changed", stale, 8L, 4L, reg, reg, true, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nvidia")
  void checkNvidia(
      String name,
      String hs,
      long alloc,
      long prevAlloc,
      Optional<String> reg,
      Optional<String> prevReg,
      boolean healthy,
      boolean refresh) {
    HealthVerdict v =
        HandshakeCheck.checkNvidia(Optional.of(hs), NOW, alloc, prevAlloc, reg, prevReg);
    assertThat(v.healthy()).isEqualTo(healthy);
    assertThat(v.refresh()).isEqualTo(refresh);
  }

  @Test
  void valuesRoundTrip() {
    assertThat(Handshake.requesting(NOW)).isEqualTo("Requesting_2026-08-21 08:20:39");
    assertThat(Handshake.parse(Handshake.requesting(NOW)))
        .isEqualTo(new Handshake.Requesting(Optional.of(NOW)));
    assertThat(Handshake.parse(Handshake.deleted(NOW)))
        .isEqualTo(new Handshake.Deleted(Optional.of(NOW)));
    assertThat(Handshake.parse("Reported_x")).isEqualTo(new Handshake.Reported("Reported_x"));
    assertThat(Handshake.parse("Requesting_2026-02-30 00:00:00"))
        .isEqualTo(new Handshake.Requesting(Optional.empty()));
  }
}
