package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class DefaultParallelizerTest {

  @Test
  void visitsEveryIndexOnce() {
    try (DefaultParallelizer p = new DefaultParallelizer(16, 4)) {
      AtomicIntegerArray seen = new AtomicIntegerArray(1000);
      p.until(1000, seen::incrementAndGet);
      for (int i = 0; i < 1000; i++) {
        assertThat(seen.get(i)).as("index %d", i).isEqualTo(1);
      }
    }
  }

  @Test
  void usesNoMoreThreadsThanCpus() {
    try (DefaultParallelizer p = new DefaultParallelizer(16, 2)) {
      Set<String> threads = ConcurrentHashMap.newKeySet();
      for (int round = 0; round < 50; round++) {
        p.until(1000, i -> threads.add(Thread.currentThread().getName()));
      }
      assertThat(threads).hasSizeLessThanOrEqualTo(2).contains(Thread.currentThread().getName());
      assertThat(p.parallelism()).isEqualTo(16);
    }
  }

  @Test
  void oneCpu_runsOnTheCaller() {
    try (DefaultParallelizer p = new DefaultParallelizer(16, 1)) {
      Set<String> threads = ConcurrentHashMap.newKeySet();
      p.until(1000, i -> threads.add(Thread.currentThread().getName()));
      assertThat(threads).containsExactly(Thread.currentThread().getName());
    }
  }

  @Test
  void doesNotWaitForAHelperThatHasNotRun() throws Exception {
    try (DefaultParallelizer p = new DefaultParallelizer(16, 2)) {
      CountDownLatch helperBusy = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ExecutorService other = Executors.newSingleThreadExecutor();
      try {
        // The only helper thread blocks inside another job.
        Future<?> blocking =
            other.submit(
                () ->
                    p.until(
                        100,
                        i -> {
                          if (Thread.currentThread().getName().startsWith("hami-parallel")) {
                            helperBusy.countDown();
                            await(release);
                          } else {
                            // Slow enough that the helper claims a chunk.
                            awaitBriefly(helperBusy);
                          }
                        }));
        assertThat(helperBusy.await(10, TimeUnit.SECONDS)).isTrue();

        AtomicIntegerArray seen = new AtomicIntegerArray(400);
        p.until(400, seen::incrementAndGet);

        for (int i = 0; i < 400; i++) {
          assertThat(seen.get(i)).isEqualTo(1);
        }
        release.countDown();
        blocking.get(10, TimeUnit.SECONDS);
      } finally {
        release.countDown();
        other.shutdownNow();
      }
    }
  }

  @Test
  void aFailureReachesTheCaller() {
    try (DefaultParallelizer p = new DefaultParallelizer(4, 4)) {
      assertThatThrownBy(
              () ->
                  p.until(
                      1000,
                      i -> {
                        if (i == 777) {
                          throw new IllegalArgumentException("boom at " + i);
                        }
                      }))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("boom at 777");
    }
  }

  private static void awaitBriefly(CountDownLatch latch) {
    try {
      latch.await(20, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
