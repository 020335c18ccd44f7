package io.hami.model.handshake;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Objects;
import java.util.Optional;

/**
 * The scheduler side of the handshake (v2.10 semantics; readers of older values included).
 *
 * <p>Times are wall-clock times without a zone in the scheduler's own zone, so callers pass {@code
 * LocalDateTime.now(clock)} from an injected clock.
 */
public final class HandshakeCheck {

  /** How long a {@code Requesting} stamp stays fresh. */
  public static final Duration EXPIRY = Duration.ofSeconds(60);

  private HandshakeCheck() {}

  /**
   * The generic check.
   *
   * @param value the handshake annotation, empty when the key is absent
   * @param now the scheduler's local time
   * @param allocatable the node's allocatable count of the vendor's count resource (0 when absent)
   */
  public static HealthVerdict check(Optional<String> value, LocalDateTime now, long allocatable) {
    if (value.isEmpty()) {
      return HealthVerdict.REPORTED;
    }
    Handshake h = Handshake.parse(value.get());
    if (h instanceof Handshake.Requesting r) {
      if (r.time().isEmpty() || now.isBefore(r.time().get().plus(EXPIRY)) || allocatable > 0) {
        return HealthVerdict.HEALTHY;
      }
      return HealthVerdict.UNHEALTHY;
    }
    // v2.10 treats a leftover Deleted value like a report
    return HealthVerdict.REPORTED;
  }

  /**
   * NVIDIA's check (v2.10): plugins since v2.8 never report, so health follows the node's
   * allocatable {@code nvidia.com/gpu} and changes of the register annotation.
   *
   * @param handshake the handshake annotation, empty when absent
   * @param now the scheduler's local time
   * @param allocatable current allocatable {@code nvidia.com/gpu}
   * @param previousAllocatable the value seen at the previous check
   * @param register the current register annotation, empty when absent
   * @param previousRegister the register annotation seen at the previous check
   */
  public static HealthVerdict checkNvidia(
      Optional<String> handshake,
      LocalDateTime now,
      long allocatable,
      long previousAllocatable,
      Optional<String> register,
      Optional<String> previousRegister) {
    HealthVerdict generic = check(handshake, now, allocatable);
    if (allocatable == 0 && previousAllocatable > 0) {
      return HealthVerdict.UNHEALTHY;
    }
    if (allocatable != previousAllocatable) {
      return new HealthVerdict(
          true,
          true,
          generic.action() == HealthVerdict.Action.REQUEST
              ? HealthVerdict.Action.REQUEST
              : HealthVerdict.Action.NONE);
    }
    if (!Objects.equals(register, previousRegister)) {
      return new HealthVerdict(generic.healthy(), true, generic.action());
    }
    return generic;
  }
}
