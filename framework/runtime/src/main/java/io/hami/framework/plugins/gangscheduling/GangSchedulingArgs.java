package io.hami.framework.plugins.gangscheduling;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;
import java.time.Duration;

/**
 * Arguments of {@link GangSchedulingPlugin}.
 *
 * @param permitWaitingTimeSeconds how long a member that has a place waits at Permit for the rest
 *     of its group's quorum before the whole group is released; kube-scheduler's 5 minutes
 */
public record GangSchedulingArgs(long permitWaitingTimeSeconds) implements PluginArgs {
  public static final long DEFAULT_PERMIT_WAITING_TIME_SECONDS = 300;

  public static GangSchedulingArgs defaults() {
    return new GangSchedulingArgs(DEFAULT_PERMIT_WAITING_TIME_SECONDS);
  }

  /** The Permit timeout. */
  public Duration permitWaitingTime() {
    return Duration.ofSeconds(permitWaitingTimeSeconds);
  }

  @Override
  public void validate(FieldErrors errors) {
    if (permitWaitingTimeSeconds <= 0) {
      errors.invalid("permitWaitingTimeSeconds", permitWaitingTimeSeconds, "must be > 0");
    }
  }
}
