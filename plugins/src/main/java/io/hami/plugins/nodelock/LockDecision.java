package io.hami.plugins.nodelock;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/** What to do about a node's lock before taking it. Contention is a value, not an exception. */
public sealed interface LockDecision {

  /** No lock on the node: take it. */
  record Free() implements LockDecision {}

  /** Held by the same pod (an earlier attempt): keep it. */
  record Mine() implements LockDecision {}

  /** Held by someone who still needs it: wait. */
  record Held(String holder, String since) implements LockDecision {
    public Held {
      requireNonNull(holder, "holder");
      requireNonNull(since, "since");
    }
  }

  /** Held by someone who no longer needs it: replace it (guarded by resourceVersion). */
  record Stale(StaleCause cause, String holder) implements LockDecision {
    public Stale {
      requireNonNull(cause, "cause");
      requireNonNull(holder, "holder");
    }
  }

  /** Whether the lock may be taken now. */
  default boolean takeable() {
    return !(this instanceof Held);
  }

  /** Helper for messages: {@code ns/name} or {@code unknown}. */
  static String holder(@Nullable String ns, @Nullable String name) {
    if (ns == null || name == null || name.isEmpty()) {
      return "unknown";
    }
    return ns + "/" + name;
  }
}
