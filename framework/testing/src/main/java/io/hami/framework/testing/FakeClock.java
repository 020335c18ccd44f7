package io.hami.framework.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that moves only when told to. Thread-safe. */
public final class FakeClock implements InstantSource {
  // Volatile read for instant(), writes under the lock: never null, unlike AtomicReference.get().
  private volatile Instant now;

  public FakeClock(Instant start) {
    this.now = start;
  }

  /** Starts at 2026-01-01T00:00:00Z. */
  public FakeClock() {
    this(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Override
  public Instant instant() {
    return now;
  }

  public synchronized FakeClock advance(Duration d) {
    now = now.plus(d);
    return this;
  }

  public synchronized FakeClock set(Instant t) {
    now = t;
    return this;
  }
}
