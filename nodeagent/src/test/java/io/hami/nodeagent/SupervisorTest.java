package io.hami.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.AbstractExecutionThreadService;
import com.google.common.util.concurrent.AbstractIdleService;
import com.google.common.util.concurrent.Service;
import com.google.common.util.concurrent.ServiceManager;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Any failed service ends the node agent, non-zero and within the grace. */
class SupervisorTest {

  /** Runs until {@link #crash} is counted down, then fails. */
  static final class Crashing extends AbstractExecutionThreadService {
    final CountDownLatch crash = new CountDownLatch(1);

    @Override
    protected void run() throws Exception {
      crash.await();
      throw new IllegalStateException("device plugin server died");
    }

    @Override
    protected void triggerShutdown() {
      crash.countDown();
    }
  }

  /** Stands for the registrar: must be stopped when another service fails. */
  static final class Idle extends AbstractIdleService {
    private final Duration stopTakes;

    Idle(Duration stopTakes) {
      this.stopTakes = stopTakes;
    }

    @Override
    protected void startUp() {}

    @Override
    protected void shutDown() throws InterruptedException {
      Thread.sleep(stopTakes.toMillis());
    }
  }

  @Test
  void aFailedService_stopsTheOthersAndExitsNonZero() throws Exception {
    Crashing crashing = new Crashing();
    Idle registrar = new Idle(Duration.ZERO);
    ServiceManager m = new ServiceManager(List.of(crashing, registrar));
    Supervisor s = new Supervisor(m);
    m.startAsync().awaitHealthy(5, TimeUnit.SECONDS);
    assertThat(s.isReady()).isTrue();

    crashing.crash.countDown();

    assertThat(s.awaitTermination(Duration.ofSeconds(5))).isEqualTo(Supervisor.EXIT_FAILED);
    assertThat(s.isReady()).isFalse();
    assertThat(crashing.state()).isEqualTo(Service.State.FAILED);
    assertThat(registrar.state()).isEqualTo(Service.State.TERMINATED);
  }

  @Test
  void aStop_exitsZero() throws Exception {
    Idle a = new Idle(Duration.ZERO);
    ServiceManager m = new ServiceManager(List.of(a, new Idle(Duration.ZERO)));
    Supervisor s = new Supervisor(m);
    m.startAsync().awaitHealthy(5, TimeUnit.SECONDS);

    s.stop();

    assertThat(s.awaitTermination(Duration.ofSeconds(5))).isZero();
    assertThat(s.isReady()).isFalse();
    assertThat(a.state()).isEqualTo(Service.State.TERMINATED);
  }

  @Test
  void aServiceThatDoesNotStop_doesNotHoldTheExit() throws Exception {
    Crashing crashing = new Crashing();
    ServiceManager m = new ServiceManager(List.of(crashing, new Idle(Duration.ofSeconds(30))));
    Supervisor s = new Supervisor(m);
    m.startAsync().awaitHealthy(5, TimeUnit.SECONDS);

    crashing.crash.countDown();
    long start = System.nanoTime();

    assertThat(s.awaitTermination(Duration.ofMillis(300))).isEqualTo(Supervisor.EXIT_FAILED);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }
}
