package io.hami.plugins.nodelock;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;
import java.time.Duration;

/**
 * Arguments of the {@code nodelock} plugin.
 *
 * @param lockTimeoutSeconds age after which a lock whose holder is not waiting for Allocate is
 *     taken over (HAMi's {@code --node-lock-timeout}, 5 minutes)
 * @param waitTimeoutSeconds how long a pod may wait at Permit for another pod of this scheduler to
 *     release the node before it is sent back to the queue
 * @param patchAttempts attempts of the resourceVersion-guarded lock patch on conflicts
 */
public record NodeLockArgs(long lockTimeoutSeconds, long waitTimeoutSeconds, int patchAttempts)
    implements PluginArgs {

  public static final NodeLockArgs DEFAULTS = new NodeLockArgs(300, 300, 5);

  @Override
  public void validate(FieldErrors errors) {
    if (lockTimeoutSeconds <= 0) {
      errors.invalid("lockTimeoutSeconds", lockTimeoutSeconds, "must be positive");
    }
    if (waitTimeoutSeconds <= 0) {
      errors.invalid("waitTimeoutSeconds", waitTimeoutSeconds, "must be positive");
    }
    if (patchAttempts < 1 || patchAttempts > 100) {
      errors.invalid("patchAttempts", patchAttempts, "must be between 1 and 100");
    }
  }

  public Duration lockTimeout() {
    return Duration.ofSeconds(lockTimeoutSeconds);
  }

  public Duration waitTimeout() {
    return Duration.ofSeconds(waitTimeoutSeconds);
  }
}
