package io.hami.framework.api;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The result of {@link PermitPlugin#permit}.
 *
 * @param status success (approve), wait, or a rejection/error
 * @param timeout for wait: how long to wait before the pod is rejected; zero otherwise
 */
public record PermitResult(Status status, Duration timeout) {
  private static final PermitResult ALLOW = new PermitResult(Status.success(), Duration.ZERO);

  public PermitResult {
    requireNonNull(status, "status");
    requireNonNull(timeout, "timeout");
    checkArgument(!timeout.isNegative(), "timeout %s is negative", timeout);
  }

  public static PermitResult allow() {
    return ALLOW;
  }

  /** Hold the pod until allowed through {@link WaitingPod#allow}, or reject it after timeout. */
  public static PermitResult waitFor(Duration timeout) {
    checkArgument(!timeout.isZero(), "wait timeout must be positive");
    return new PermitResult(Status.waiting(), timeout);
  }

  public static PermitResult reject(Status status) {
    checkArgument(!status.isSuccess(), "a rejection needs a non-success status");
    return new PermitResult(status, Duration.ZERO);
  }
}
