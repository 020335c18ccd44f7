package io.hami.model.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.hami.model.Decoded;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §4 and §10.5: node lock values. */
class NodeLockTest {

  private static final OffsetDateTime T =
      OffsetDateTime.of(2026, 8, 21, 16, 20, 39, 0, ZoneOffset.ofHours(8));

  static Stream<Arguments> decodes() {
    return Stream.of(
        arguments(
            "§4 example",
            "2026-08-21T16:20:39+08:00,default,gpu-pod-1",
            NodeLock.of(T, "default", "gpu-pod-1")),
        arguments(
            "Z suffix",
            "2026-08-21T08:20:39Z,ns,p",
            NodeLock.of(OffsetDateTime.of(2026, 8, 21, 8, 20, 39, 0, ZoneOffset.UTC), "ns", "p")),
        arguments("legacy time only", "2026-08-21T16:20:39+08:00", NodeLock.timeOnly(T)),
        arguments(
            "fractional seconds",
            "2026-08-21T16:20:39.5+08:00",
            NodeLock.timeOnly(T.withNano(500_000_000))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("decodes")
  void decode(String name, String value, NodeLock want) {
    assertThat(NodeLock.decode(value)).isEqualTo(Decoded.ok(want));
  }

  static Stream<Arguments> errors() {
    return Stream.of(
        arguments("V34 unparsable", "lock"),
        arguments("two parts", "2026-08-21T16:20:39+08:00,default"),
        arguments("four parts", "2026-08-21T16:20:39+08:00,a,b,c"),
        arguments("bad time", "yesterday,a,b"),
        arguments("no offset", "2026-08-21T16:20:39,a,b"),
        arguments("no seconds", "2026-08-21T16:20+08:00"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errors")
  void decodeError(String name, String value) {
    assertThat(NodeLock.decode(value).isOk()).isFalse();
  }

  @Test
  void v34_encodeLockValue() {
    assertThat(NodeLock.of(T, "hami-ns", "hami").encode())
        .isEqualTo("2026-08-21T16:20:39+08:00,hami-ns,hami");
    assertThat(NodeLock.of(T.withOffsetSameInstant(ZoneOffset.UTC), "a", "b").encode())
        .isEqualTo("2026-08-21T08:20:39Z,a,b");
    assertThat(NodeLock.timeOnly(T).encode()).isEqualTo("2026-08-21T16:20:39+08:00");
  }

  @Test
  void v33_podKey() {
    assertThat(NodeLock.podKey("test-namespace", "test-pod", "-"))
        .isEqualTo("test-namespace-test-pod");
    assertThat(NodeLock.podKey("test-namespace", "test-pod", ""))
        .isEqualTo("test-namespacetest-pod");
    assertThat(NodeLock.podKey("test-namespace", "test-pod", "@@@"))
        .isEqualTo("test-namespace@@@test-pod");
  }

  @Test
  void v34_v35_holderAndExpiry() {
    NodeLock lock = NodeLock.of(T, "other-ns", "other-pod");
    Instant now = T.toInstant().plusSeconds(10);
    assertThat(lock.isHeldBy("other-ns", "other-pod")).isTrue();
    assertThat(lock.isHeldBy("other-ns", "pod")).isFalse();
    assertThat(lock.isExpired(now, NodeLock.DEFAULT_TIMEOUT)).isFalse();
    assertThat(lock.isExpired(T.toInstant().plus(Duration.ofMinutes(6)), NodeLock.DEFAULT_TIMEOUT))
        .isTrue();
    assertThat(NodeLock.timeOnly(T).isHeldBy("", "")).isFalse();
  }

  @Test
  void releaseOwnerCheck() {
    String v = "2026-08-21T16:20:39+08:00,default,gpu-pod-1";
    assertThat(NodeLock.releasableBy(v, "default", "gpu-pod-1")).isTrue();
    assertThat(NodeLock.releasableBy(v, "default", "pod-1")).isFalse();
    assertThat(NodeLock.releasableBy("2026-08-21T16:20:39+08:00", "default", "x")).isTrue();
  }
}
