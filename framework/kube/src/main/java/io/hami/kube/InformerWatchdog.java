package io.hami.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks {@link WatchedInformer}s periodically, on a daemon thread of its own: a count probe may
 * wait on an API server that is away, and nothing else should wait with it. Closing it stops the
 * checks and the informers.
 */
public final class InformerWatchdog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InformerWatchdog.class);

  private final List<WatchedInformer<?>> informers = new CopyOnWriteArrayList<>();
  private final String threadName;
  private @Nullable ScheduledExecutorService thread;
  private boolean closed;

  /**
   * @param threadName the name of the thread the checks run on, started by {@link #start}
   */
  public InformerWatchdog(String threadName) {
    this.threadName = threadName;
  }

  /** Adds {@code informer} to the informers checked; returns it. */
  public <T extends HasMetadata> WatchedInformer<T> add(WatchedInformer<T> informer) {
    informers.add(informer);
    return informer;
  }

  /** How many of the informers run (a replaced one counts once). */
  public int running() {
    return (int) informers.stream().filter(WatchedInformer::isRunning).count();
  }

  /** Checks every informer each {@code period}, the first time one period from now. */
  // The task logs its own failures and runs until close() shuts the thread down.
  @SuppressWarnings("FutureReturnValueIgnored")
  public synchronized void start(Duration period) {
    if (closed || thread != null) {
      throw new IllegalStateException(closed ? "closed" : "already started");
    }
    ScheduledExecutorService t =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread th = new Thread(r, threadName);
              th.setDaemon(true);
              return th;
            });
    thread = t;
    long ms = period.toMillis();
    t.scheduleWithFixedDelay(this::checkAll, ms, ms, TimeUnit.MILLISECONDS);
  }

  private void checkAll() {
    for (WatchedInformer<?> i : informers) {
      try {
        i.check(System.nanoTime());
      } catch (RuntimeException e) {
        log.error("informer check failed informer={}", i.name(), e);
      }
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (thread != null) {
      thread.shutdownNow();
    }
    informers.forEach(WatchedInformer::stop);
  }
}
