package io.hami.plugins.nodelock;

import io.hami.model.Decoded;
import io.hami.model.lock.NodeLock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether a node lock can be taken (protocol §4, with the stale-lock rules HAMi users asked
 * for): a lock is taken over when it has expired, when its holder is gone, terminal, already served
 * by the node agent or bound elsewhere, and never while its holder is bound to the node and waiting
 * for Allocate, however old the lock is.
 */
public final class LockArbiter {
  private final Duration timeout;

  public LockArbiter(Duration timeout) {
    this.timeout = timeout;
  }

  public Duration timeout() {
    return timeout;
  }

  /**
   * Decides what to do about a node's lock before taking it.
   *
   * @param value the current {@code hami.io/mutex.lock} value, or null
   * @param namespace namespace of the pod that wants the lock
   * @param name name of the pod that wants the lock
   * @param now the current time
   * @param holderState looks up the holder (namespace, name); called only when the answer matters
   */
  public LockDecision decide(
      @Nullable String value,
      String namespace,
      String name,
      Instant now,
      BiFunction<String, String, HolderState> holderState) {
    if (value == null || value.isEmpty()) {
      return new LockDecision.Free();
    }
    Decoded<NodeLock> decoded = NodeLock.decode(value);
    if (!(decoded instanceof Decoded.Ok<NodeLock> ok)) {
      return new LockDecision.Stale(StaleCause.UNPARSEABLE, value);
    }
    NodeLock lock = ok.value();
    if (lock.isHeldBy(namespace, name)) {
      return new LockDecision.Mine();
    }
    boolean expired = lock.isExpired(now, timeout);
    String holder = lock.isTimeOnly() ? "unknown" : lock.namespace() + "/" + lock.name();
    String since = lock.time().toString();
    if (lock.isTimeOnly()) {
      return expired
          ? new LockDecision.Stale(StaleCause.EXPIRED, holder)
          : new LockDecision.Held(holder, since);
    }
    HolderState state = holderState.apply(lock.namespace(), lock.name());
    if (state.cause() != null) {
      return new LockDecision.Stale(state.cause(), holder);
    }
    if (state == HolderState.WAITING_ALLOCATE || !expired) {
      return new LockDecision.Held(holder, since);
    }
    return new LockDecision.Stale(StaleCause.EXPIRED, holder);
  }
}
