package io.hami.framework.api;

import java.util.function.IntConsumer;

/**
 * Runs independent pieces of work with bounded parallelism (Filter and Score fan out through it).
 * The calling thread takes part in the work.
 */
public interface Parallelizer {

  /** The most pieces run at once. */
  int parallelism();

  /**
   * Runs {@code work} for each index in {@code [0, pieces)} and returns when all have finished.
   * Work that wants to stop early checks its own flag and returns. If a piece throws, remaining
   * pieces may still run and the first exception is rethrown.
   */
  void until(int pieces, IntConsumer work);

  /** A parallelizer that runs every piece on the calling thread, in index order. */
  static Parallelizer sequential() {
    return SequentialParallelizer.INSTANCE;
  }
}

enum SequentialParallelizer implements Parallelizer {
  INSTANCE;

  @Override
  public int parallelism() {
    return 1;
  }

  @Override
  public void until(int pieces, IntConsumer work) {
    for (int i = 0; i < pieces; i++) {
      work.accept(i);
    }
  }
}
