package io.hami.framework.plugins.schedulinggates;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a pod that still has {@code spec.schedulingGates} out of the active queue, as
 * kube-scheduler's SchedulingGates does. The API server only lets gates be removed, never added, so
 * a gated pod has never been attempted; the queue re-runs PreEnqueue on every update of the pod's
 * spec, and the update that removes the last gate sends it to the active queue at once.
 */
public final class SchedulingGatesPlugin implements PreEnqueuePlugin, EnqueueExtensions {
  public static final String NAME = "SchedulingGates";

  public static Plugin create(FrameworkHandle handle) {
    return new SchedulingGatesPlugin();
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, SchedulingGatesPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status preEnqueue(Pod pod) {
    List<String> gates = gateNames(pod);
    if (gates.isEmpty()) {
      return Status.success();
    }
    // Worded as kube-scheduler prints the gate names (Go's %v of a string slice).
    return Status.unresolvable("waiting for scheduling gates: [" + String.join(" ", gates) + "]");
  }

  /** The names of the pod's scheduling gates, in order; empty when it has none. */
  static List<String> gateNames(@Nullable Pod pod) {
    if (pod == null || pod.getSpec() == null) {
      return List.of();
    }
    List<PodSchedulingGate> gates = pod.getSpec().getSchedulingGates();
    if (gates == null || gates.isEmpty()) {
      return List.of();
    }
    List<String> names = new ArrayList<>(gates.size());
    for (PodSchedulingGate g : gates) {
      names.add(g == null || g.getName() == null ? "" : g.getName());
    }
    return names;
  }

  /**
   * Only the removal of the pod's own last gate lets it through. The queue already re-runs
   * PreEnqueue when a parked pod's spec changes; the hint covers the event path as well.
   */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SPEC),
            (pod, oldObj, newObj) ->
                newObj instanceof Pod p
                        && p.getMetadata() != null
                        && pod.getMetadata() != null
                        && Objects.equals(p.getMetadata().getUid(), pod.getMetadata().getUid())
                        && gateNames(p).isEmpty()
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP));
  }
}
