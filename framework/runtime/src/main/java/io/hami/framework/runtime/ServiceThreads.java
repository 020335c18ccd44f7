package io.hami.framework.runtime;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The threads of {@link SchedulerService}: daemons, so that they never hold the JVM up. */
final class ServiceThreads {
  private ServiceThreads() {}

  /** Daemon threads named {@code <prefix>-1}, {@code <prefix>-2}, ... */
  static ThreadFactory daemon(String prefix) {
    return new ThreadFactoryBuilder().setNameFormat(prefix + "-%d").setDaemon(true).build();
  }

  /** {@code count} executors of {@link #boundedSingle}, named {@code <name>-<i>}. */
  static List<ExecutorService> lanes(String name, int count, int capacity) {
    List<ExecutorService> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(boundedSingle(name + "-" + i, capacity));
    }
    return List.copyOf(out);
  }

  /** One daemon thread behind a queue of {@code capacity} tasks; a task over it is refused. */
  static ExecutorService boundedSingle(String name, int capacity) {
    return new ThreadPoolExecutor(
        1,
        1,
        0,
        TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(capacity),
        daemon(name),
        new ThreadPoolExecutor.AbortPolicy());
  }
}
