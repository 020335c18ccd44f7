package io.hami.model.handshake;

/**
 * Outcome of a scheduler health check for one node and vendor.
 *
 * @param healthy whether the vendor's devices on the node stay usable
 * @param refresh whether the register annotation must be read again
 * @param action what the scheduler writes next
 */
public record HealthVerdict(boolean healthy, boolean refresh, Action action) {

  /** The follow-up write a verdict asks for. */
  public enum Action {
    /** Nothing to write. */
    NONE,
    /** Write {@code Requesting_<now>} into the handshake key. */
    REQUEST,
    /** Unhealthy: remove the handshake key and drop the vendor's devices. */
    CLEAN_UP
  }

  static final HealthVerdict HEALTHY = new HealthVerdict(true, false, Action.NONE);
  static final HealthVerdict UNHEALTHY = new HealthVerdict(false, false, Action.CLEAN_UP);
  static final HealthVerdict REPORTED = new HealthVerdict(true, true, Action.REQUEST);
}
