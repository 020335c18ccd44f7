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
 * @param mode {@code node} (the default): HAMi's lock annotation on the Node, which every HAMi
 *     device plugin needs; {@code scheduler}: no lock write, the scheduler alone keeps one pod per
 *     node between binding and Allocate, for nodes whose agents find that pod without the lock
 *     (they say so with {@code hami.io/node-lock-free}); nodes without it still get the node lock
 * @param maxBusyNodes 0 (the default): Score always prefers nodes with fewer pods between placement
 *     and Allocate; above 0: only while fewer of the pod's feasible nodes have any, so that a burst
 *     is served by that many nodes at once and the other scores (a binpack policy) decide beyond
 */
public record NodeLockArgs(
    long lockTimeoutSeconds,
    long waitTimeoutSeconds,
    int patchAttempts,
    String mode,
    int maxBusyNodes)
    implements PluginArgs {

  /** The lock annotation on the Node (HAMi's protocol). */
  public static final String MODE_NODE = "node";

  /** The scheduler's own per-node order, no lock write, on nodes whose agents allow it. */
  public static final String MODE_SCHEDULER = "scheduler";

  public static final NodeLockArgs DEFAULTS = new NodeLockArgs(300, 300, 5, MODE_NODE, 0);

  /** The defaults' timeouts and attempts with {@code mode}. */
  public static NodeLockArgs withMode(String mode) {
    return new NodeLockArgs(
        DEFAULTS.lockTimeoutSeconds,
        DEFAULTS.waitTimeoutSeconds,
        DEFAULTS.patchAttempts,
        mode,
        DEFAULTS.maxBusyNodes);
  }

  /** Whether the scheduler keeps the order without writing locks where the node allows it. */
  public boolean lockFree() {
    return MODE_SCHEDULER.equals(mode);
  }

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
    if (!MODE_NODE.equals(mode) && !MODE_SCHEDULER.equals(mode)) {
      errors.invalid("mode", mode, "must be one of node, scheduler");
    }
    if (maxBusyNodes < 0 || maxBusyNodes > 100_000) {
      errors.invalid("maxBusyNodes", maxBusyNodes, "must be in 0..100000 (0: no limit)");
    }
  }

  public Duration lockTimeout() {
    return Duration.ofSeconds(lockTimeoutSeconds);
  }

  public Duration waitTimeout() {
    return Duration.ofSeconds(waitTimeoutSeconds);
  }
}
