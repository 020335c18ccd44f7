package io.hami.cmd.bench;

import org.jspecify.annotations.Nullable;

/**
 * The backlog measure ({@code --backlog}): the measured pods are all created while their scheduler
 * is paused, then it is resumed and timed while it drains them, as scheduler_perf times a scheduler
 * that has its pods waiting. Its figures are then the scheduler's own rate (with the API server's
 * cost of its writes), not the rate the pods arrived at, which on a small machine moves with what
 * the scheduler takes from the API server's share of the CPU.
 */
final class Backlog {
  private Backlog() {}

  /** Creates the pods. */
  @FunctionalInterface
  interface Creation {
    void run() throws InterruptedException;
  }

  /**
   * Runs {@code creation} with {@code scheduler} paused, then resumes it (whatever the creation
   * did) and tells {@code tracker} when; with no scheduler, just runs the creation.
   */
  static void hold(@Nullable ScrapedProcess scheduler, BindTracker tracker, Creation creation)
      throws Exception {
    if (scheduler == null) {
      creation.run();
      return;
    }
    scheduler.pause();
    try {
      creation.run();
    } finally {
      long at = System.nanoTime();
      scheduler.resume();
      tracker.released(at);
    }
  }
}
