package io.hami.framework.runtime;

import static com.google.common.base.Preconditions.checkArgument;

import io.hami.framework.api.Parallelizer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A parallelizer over a fixed pool of daemon threads plus the calling thread. Work is handed out in
 * chunks of about {@code sqrt(pieces)} indexes, as kube-scheduler does, so that small jobs stay on
 * the caller. At most as many threads work on a job as the JVM has CPUs (a CPU-bound job gains
 * nothing from more, and each extra helper is a wake-up the caller waits for), and the caller waits
 * for the chunks to be done, not for every helper to have started: on a busy machine a helper the
 * OS has not run yet finds nothing left and costs the caller nothing. Closing it stops the pool.
 */
public final class DefaultParallelizer implements Parallelizer, AutoCloseable {
  private final int parallelism;
  private final int workers;
  // Null when one worker, the calling thread, does all the work.
  private final @Nullable ExecutorService pool;

  public DefaultParallelizer(int parallelism) {
    this(parallelism, Runtime.getRuntime().availableProcessors());
  }

  /** For tests: {@code cpus} stands for the JVM's available processors. */
  DefaultParallelizer(int parallelism, int cpus) {
    checkArgument(parallelism >= 1, "parallelism %s must be at least 1", parallelism);
    this.parallelism = parallelism;
    this.workers = Math.max(1, Math.min(parallelism, cpus));
    AtomicInteger n = new AtomicInteger();
    ThreadFactory tf =
        r -> {
          Thread t = new Thread(r, "hami-parallel-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    this.pool = workers > 1 ? Executors.newFixedThreadPool(workers - 1, tf) : null;
  }

  @Override
  public int parallelism() {
    return parallelism;
  }

  @Override
  public void until(int pieces, IntConsumer work) {
    if (pieces <= 0) {
      return;
    }
    int chunk = Math.max(1, (int) Math.sqrt(pieces));
    int chunks = (pieces + chunk - 1) / chunk;
    int helpers = Math.min(workers, chunks) - 1;
    if (helpers <= 0 || pool == null) {
      for (int i = 0; i < pieces; i++) {
        work.accept(i);
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(chunks);
    Runnable loop =
        () -> {
          int c;
          while ((c = next.getAndIncrement()) < chunks) {
            int from = c * chunk;
            int to = Math.min(pieces, from + chunk);
            try {
              for (int i = from; i < to; i++) {
                work.accept(i);
              }
            } catch (RuntimeException e) {
              failure.compareAndSet(null, e);
            } finally {
              done.countDown();
            }
          }
        };
    for (int w = 0; w < helpers; w++) {
      pool.execute(loop);
    }
    loop.run();
    try {
      done.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for parallel work", e);
    }
    RuntimeException e = failure.get();
    if (e != null) {
      throw e;
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
