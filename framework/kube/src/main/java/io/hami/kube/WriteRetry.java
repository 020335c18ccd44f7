package io.hami.kube;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Retries one API write that the server refused for a reason that may pass: a 409 Conflict, a 429
 * Too Many Requests, a 5xx, or a request that got no answer (no code: the client reports -1, or 0
 * where a caller made the exception without one). The client's own retries cover 429, 5xx and lost
 * connections first; this covers what outlasts them, and the conflicts the client never retries.
 *
 * <p>Each attempt is told whether it is a retry, so that after a conflict it re-reads the object
 * and writes against what the server holds now. Backoff doubles from the first delay; after a 429
 * it waits at least a second, as the server's {@code Retry-After} asks. The policy is bounded both
 * in attempts and in total time (a backoff that would end past the budget is not started), and an
 * interrupt ends it at once: the last failure is thrown with the interrupt flag set. Any other
 * failure (404, 422, ...) is thrown at once. Thread-safe and stateless.
 */
public final class WriteRetry {

  /** One attempt at the write. */
  @FunctionalInterface
  public interface Attempt<T> {
    /**
     * @param retry false on the first attempt; true after a failure, when the attempt should
     *     re-read what it writes against
     */
    T run(boolean retry);
  }

  /** Blocks the calling thread; the production one is {@link Thread#sleep(long)}. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  /** Five attempts within ten seconds, from 100 ms. */
  public static final WriteRetry DEFAULT =
      new WriteRetry(
          5, Duration.ofSeconds(10), Duration.ofMillis(100), System::nanoTime, Thread::sleep);

  static final long TOO_MANY_REQUESTS_MILLIS = 1_000;

  private final int attempts;
  private final long budgetNanos;
  private final long firstBackoffMillis;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;

  /**
   * @param attempts at least 1
   * @param budget the time all attempts and backoffs may take together
   * @param firstBackoff the delay before the second attempt, doubled before each later one
   */
  public WriteRetry(
      int attempts,
      Duration budget,
      Duration firstBackoff,
      LongSupplier nanoTime,
      Sleeper sleeper) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
    }
    if (budget.isNegative() || firstBackoff.isNegative()) {
      throw new IllegalArgumentException(
          "budget and backoff must not be negative, were " + budget + " and " + firstBackoff);
    }
    this.attempts = attempts;
    this.budgetNanos = budget.toNanos();
    this.firstBackoffMillis = firstBackoff.toMillis();
    this.nanoTime = requireNonNull(nanoTime, "nanoTime");
    this.sleeper = requireNonNull(sleeper, "sleeper");
  }

  /** Whether a write that failed with {@code e} may succeed if tried again. */
  public static boolean isRetryable(KubernetesClientException e) {
    int code = e.getCode();
    return outcomeUnknown(e) || code == 409 || code == 429;
  }

  /**
   * Whether a write that failed with {@code e} may have been applied all the same: it got no answer
   * (a dropped connection, a timeout) or a 5xx, which the server may send after writing. A caller
   * that must know reads the object back.
   */
  public static boolean outcomeUnknown(KubernetesClientException e) {
    int code = e.getCode();
    return code <= 0 || code >= 500;
  }

  /**
   * Runs {@code write} until it returns, retrying retryable failures within the bounds.
   *
   * @throws KubernetesClientException the last failure, when it is not retryable, the bounds are
   *     spent or the thread is interrupted
   */
  public <T> T call(Attempt<T> write) {
    long deadline = nanoTime.getAsLong() + budgetNanos;
    long backoff = firstBackoffMillis;
    for (int attempt = 1; ; attempt++) {
      try {
        return write.run(attempt > 1);
      } catch (KubernetesClientException e) {
        if (!isRetryable(e) || attempt >= attempts) {
          throw e;
        }
        long wait = e.getCode() == 429 ? Math.max(backoff, TOO_MANY_REQUESTS_MILLIS) : backoff;
        if (Thread.currentThread().isInterrupted()
            || deadline - nanoTime.getAsLong() <= Duration.ofMillis(wait).toNanos()) {
          throw e;
        }
        try {
          sleeper.sleep(wait);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
        backoff = Math.max(1, backoff * 2);
      }
    }
  }

  /** As {@link #call}, for a write with no result. */
  public void run(Attempt<?> write) {
    call(write);
  }
}
