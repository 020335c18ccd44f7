package io.hami.plugins.vgpu;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.QueueingHint;
import io.hami.model.Annotations;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** The cluster events after which a pod the vGPU plugin rejected may fit, with their hints. */
final class VgpuRequeue {

  private final Set<String> registrationKeys;

  /** The vendors' device-count resources, which a pod holding devices asks for. */
  private final Set<String> countResources;

  VgpuRequeue(List<GpuVendor> vendors) {
    // Handshake values flip every period on every live node (request, report): requeueing on
    // each flip would retry every waiting pod all the time. Health changes they cause reach the
    // pods through the periodic flush of unschedulable pods.
    Set<String> keys = new HashSet<>(ModelReaders.registrationKeys(vendors));
    for (GpuVendor v : vendors) {
      keys.remove(v.keys().handshake());
    }
    this.registrationKeys = Set.copyOf(keys);
    Set<String> counts = new HashSet<>();
    for (GpuVendor v : vendors) {
      if (!v.names().count().isEmpty()) {
        counts.add(v.names().count());
      }
    }
    this.countResources = Set.copyOf(counts);
  }

  List<ClusterEventWithHint> events() {
    return List.of(
        ClusterEventWithHint.of(ClusterEvent.of(EventResource.NODE, ActionType.ADD)),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.NODE,
                ActionType.UPDATE_NODE_ANNOTATION,
                ActionType.UPDATE_NODE_ALLOCATABLE),
            this::nodeHint),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.ASSIGNED_POD,
                ActionType.DELETE,
                ActionType.UPDATE_POD_SCALE_DOWN,
                ActionType.UPDATE_POD_ANNOTATION),
            this::podHint));
  }

  private QueueingHint nodeHint(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (!(oldObj instanceof Node o) || !(newObj instanceof Node n)) {
      return QueueingHint.QUEUE;
    }
    Map<String, String> oa = annotations(o);
    Map<String, String> na = annotations(n);
    for (String k : registrationKeys) {
      if (!Objects.equals(oa.get(k), na.get(k))) {
        return QueueingHint.QUEUE;
      }
    }
    Object alloc1 = o.getStatus() == null ? null : o.getStatus().getAllocatable();
    Object alloc2 = n.getStatus() == null ? null : n.getStatus().getAllocatable();
    return Objects.equals(alloc1, alloc2) ? QueueingHint.SKIP : QueueingHint.QUEUE;
  }

  private QueueingHint podHint(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    HasMetadata before = oldObj != null ? oldObj : newObj;
    if (before == null) {
      return QueueingHint.QUEUE;
    }
    // Only pods that held devices free any when they leave or change: those with the decision's
    // annotations, or (where nothing writes them, as in memory) bound pods asking for devices.
    if (annotations(before).containsKey(Annotations.VGPU_NODE)) {
      return QueueingHint.QUEUE;
    }
    return before instanceof Pod p && asksForDevices(p) ? QueueingHint.QUEUE : QueueingHint.SKIP;
  }

  private boolean asksForDevices(Pod p) {
    if (p.getSpec() == null || p.getSpec().getContainers() == null) {
      return false;
    }
    for (Container c : p.getSpec().getContainers()) {
      ResourceRequirements r = c == null ? null : c.getResources();
      if (r == null) {
        continue;
      }
      for (String name : countResources) {
        if ((r.getLimits() != null && r.getLimits().containsKey(name))
            || (r.getRequests() != null && r.getRequests().containsKey(name))) {
          return true;
        }
      }
    }
    return false;
  }

  private static Map<String, String> annotations(HasMetadata o) {
    Map<String, String> a = o.getMetadata() == null ? null : o.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }
}
