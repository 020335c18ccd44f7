package io.hami.nodeagent.deviceplugin;

import com.google.common.util.concurrent.AbstractScheduledService;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frees the placements of pods that are gone: every {@code period}, destroys the MIG instances no
 * live pod on the node has held for two passes in a row ({@link MigInstances#reap}). Runs on the
 * injected executor.
 */
public final class MigReaper extends AbstractScheduledService {
  private static final Logger log = LoggerFactory.getLogger(MigReaper.class);

  private final MigInstances instances;
  private final Supplier<List<Pod>> podsOnNode;
  private final Duration period;
  private final ScheduledExecutorService executor;

  public MigReaper(
      MigInstances instances,
      Supplier<List<Pod>> podsOnNode,
      Duration period,
      ScheduledExecutorService executor) {
    this.instances = instances;
    this.podsOnNode = podsOnNode;
    this.period = period;
    this.executor = executor;
  }

  @Override
  protected void runOneIteration() {
    try {
      instances.reap(podsOnNode);
    } catch (RuntimeException e) {
      // A failed pod list must not end the service: the next pass retries.
      log.warn("MIG instance cleanup failed, retrying in {}", period, e);
    }
  }

  @Override
  protected Scheduler scheduler() {
    return Scheduler.newFixedDelaySchedule(
        period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  protected ScheduledExecutorService executor() {
    return executor;
  }

  @Override
  protected String serviceName() {
    return "MigReaper";
  }
}
