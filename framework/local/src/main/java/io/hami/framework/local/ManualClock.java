package io.hami.framework.local;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock the in-memory cluster moves forward explicitly. Thread-safe. */
public final class ManualClock implements InstantSource {
  private volatile Instant now;

  public ManualClock(Instant start) {
    this.now = start;
  }

  @Override
  public Instant instant() {
    return now;
  }

  public synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  /** Moves the clock to {@code t} if it is later than now. */
  public synchronized void advanceTo(Instant t) {
    if (t.isAfter(now)) {
      now = t;
    }
  }
}
