package io.hami.framework.queue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.QueueingHint;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a cluster event is worth requeueing a parked pod for: the events each plugin
 * registered, and their queueing hints. Holds no mutable state; the queue calls it under its lock,
 * so hint functions must be cheap.
 */
final class RequeueHints {
  // The queue's logger: these lines belong to the queue's log.
  private static final Logger log = LoggerFactory.getLogger(SchedulingQueue.class);

  private final Map<String, List<ClusterEventWithHint>> registrations;

  /**
   * @param registrations the events each plugin registered, by plugin name; a rejecting plugin
   *     without an entry is interested in every event
   */
  RequeueHints(Map<String, List<ClusterEventWithHint>> registrations) {
    this.registrations = Map.copyOf(registrations);
  }

  /**
   * Whether the event may make the pod schedulable: one of the plugins holding it back (PreEnqueue
   * first, else the ones that rejected it) registered a matching event whose hint, if any, says
   * queue. A pod with no such plugins, or a failing hint, is requeued.
   */
  boolean worthRequeuing(
      QueuedPodInfo info, ClusterEvent event, @Nullable HasMetadata o, @Nullable HasMetadata n) {
    Collection<String> plugins =
        info.pendingPlugins().isEmpty() ? info.unschedulablePlugins() : info.pendingPlugins();
    if (plugins.isEmpty()) {
      return true;
    }
    for (String plugin : plugins) {
      List<ClusterEventWithHint> regs = registrations.get(plugin);
      if (regs == null) {
        return true;
      }
      for (ClusterEventWithHint r : regs) {
        if (!r.event().matches(event)) {
          continue;
        }
        if (r.hint() == null) {
          return true;
        }
        try {
          if (r.hint().hint(info.pod(), o, n) == QueueingHint.QUEUE) {
            return true;
          }
        } catch (RuntimeException e) {
          log.warn("queueing hint failed, requeueing" + " plugin={} pod={}", plugin, info.key(), e);
          return true;
        }
      }
    }
    return false;
  }
}
