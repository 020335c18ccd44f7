package io.hami.nodeagent;

import static java.util.Objects.requireNonNull;

import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.Service;
import com.google.common.util.concurrent.ServiceManager;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the node agent's services and fails fast: when any of them fails, the agent turns unready,
 * stops every other service (a registrar must not keep publishing healthy GPUs for a dead device
 * plugin) and {@link #awaitTermination} returns {@link #EXIT_FAILED} within the stop grace, so the
 * process exits non-zero and the DaemonSet restarts it.
 *
 * <p>Concurrency: the failure listener runs on the thread of the failing service and only flips
 * flags and asks the manager to stop; {@link #awaitTermination} runs on the caller's thread.
 */
final class Supervisor {
  private static final Logger log = LoggerFactory.getLogger(Supervisor.class);

  /** The exit code after a service failed. */
  static final int EXIT_FAILED = 1;

  private final ServiceManager services;
  private final CountDownLatch ending = new CountDownLatch(1);
  private volatile boolean failed;
  private volatile boolean stopping;

  Supervisor(ServiceManager services) {
    this.services = requireNonNull(services, "services");
    services.addListener(
        new ServiceManager.Listener() {
          @Override
          public void failure(Service service) {
            failed = true;
            log.error(
                "service failed: {}; stopping the node agent", service, service.failureCause());
            services.stopAsync();
            ending.countDown();
          }

          @Override
          public void stopped() {
            ending.countDown();
          }
        },
        MoreExecutors.directExecutor());
  }

  /** Whether every service runs and none failed (readiness). */
  boolean isReady() {
    return !failed && !stopping && services.isHealthy();
  }

  boolean failed() {
    return failed;
  }

  /** Asks every service to stop; {@link #awaitTermination} then returns 0. */
  void stop() {
    stopping = true;
    services.stopAsync();
    ending.countDown();
  }

  /**
   * Blocks until {@link #stop} is called, a service fails or every service stopped; then waits up
   * to {@code grace} for the others to stop. Returns 0 after a clean stop, {@link #EXIT_FAILED}
   * after a failure.
   */
  int awaitTermination(Duration grace) throws InterruptedException {
    ending.await();
    try {
      services.stopAsync().awaitStopped(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn("services did not stop within {}: {}", grace, services.servicesByState());
    }
    return failed ? EXIT_FAILED : 0;
  }
}
