package io.hami.framework.queue;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.Status;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the PreEnqueue plugins of a pod's profile before the pod may enter the active queue. */
final class PreEnqueueGate {
  private static final Logger log = LoggerFactory.getLogger(SchedulingQueue.class);

  private final Function<Pod, List<PreEnqueuePlugin>> plugins;
  private final InstantSource clock;

  PreEnqueueGate(Function<Pod, List<PreEnqueuePlugin>> plugins, InstantSource clock) {
    this.plugins = plugins;
    this.clock = clock;
  }

  /**
   * Whether every plugin lets the pod in. The first that refuses (or throws) is recorded as the
   * pod's pending plugin, with the time of the refusal.
   */
  boolean passes(QueuedPodInfo info) {
    info.pendingPlugins().clear();
    for (PreEnqueuePlugin p : plugins.apply(info.pod())) {
      Status s;
      try {
        s = p.preEnqueue(info.pod());
      } catch (RuntimeException e) {
        log.warn("PreEnqueue failed plugin={} pod={}", p.name(), info.key(), e);
        s = Status.error(e);
      }
      if (!s.isSuccess()) {
        info.pendingPlugins().add(p.name());
        info.setTimestamp(clock.instant());
        return false;
      }
    }
    return true;
  }
}
