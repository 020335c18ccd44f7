package io.hami.framework.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that moves only when told to. Thread-safe. */
public final class FakeClock implements InstantSource {
  private final AtomicReference<Instant> now;

  public FakeClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** Starts at 2026-01-01T00:00:00Z. */
  public FakeClock() {
    this(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  public FakeClock advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
    return this;
  }

  public FakeClock set(Instant t) {
    now.set(t);
    return this;
  }
}
