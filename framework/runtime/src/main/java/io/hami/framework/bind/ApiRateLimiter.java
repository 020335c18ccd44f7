package io.hami.framework.bind;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.function.LongSupplier;

/**
 * A token bucket for the scheduler's own API writes ({@code --kube-qps}, {@code --kube-burst}): up
 * to {@code burst} requests at once, refilled at {@code qps} per second. Thread-safe; {@link
 * #acquire} blocks the calling (binding or writer) thread, never the scheduling thread.
 */
public final class ApiRateLimiter {
  private final double qps;
  private final double burst;
  private final LongSupplier nanoTime;

  @GuardedBy("this")
  private double tokens;

  @GuardedBy("this")
  private long last;

  public ApiRateLimiter(double qps, int burst, LongSupplier nanoTime) {
    checkArgument(qps > 0, "qps %s must be positive", qps);
    checkArgument(burst >= 1, "burst %s must be at least 1", burst);
    this.qps = qps;
    this.burst = burst;
    this.nanoTime = nanoTime;
    this.tokens = burst;
    this.last = nanoTime.getAsLong();
  }

  public static ApiRateLimiter unlimited() {
    return new ApiRateLimiter(1e9, Integer.MAX_VALUE, System::nanoTime);
  }

  /** Takes a token, waiting for one if the bucket is empty. */
  public void acquire() throws InterruptedException {
    long waitNanos;
    synchronized (this) {
      refill();
      tokens -= 1;
      waitNanos = tokens >= 0 ? 0 : (long) (-tokens / qps * 1e9);
    }
    if (waitNanos > 0) {
      Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
    }
  }

  /** Takes a token if one is available now. */
  public synchronized boolean tryAcquire() {
    refill();
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }

  @GuardedBy("this")
  private void refill() {
    long now = nanoTime.getAsLong();
    tokens = Math.min(burst, tokens + (now - last) / 1e9 * qps);
    last = now;
  }
}
