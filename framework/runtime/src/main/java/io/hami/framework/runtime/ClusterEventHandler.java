package io.hami.framework.runtime;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.Resources;
import io.hami.framework.cache.SchedulerCache;
import io.hami.framework.queue.SchedulingQueue;
import io.hami.kube.PodPhases;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns node and pod events (from informers, or from an in-memory cluster) into cache updates,
 * queue updates, cluster events for requeueing, and calls to plugins' {@link
 * ClusterStateListener}s. Handlers only update memory and return.
 *
 * <p>Concurrency: every entry point is synchronized, so events from the node and pod informers are
 * applied one at a time and listeners see them in one order. A failure on one object is logged and
 * never stops the stream.
 */
public final class ClusterEventHandler {
  private static final Logger log = LoggerFactory.getLogger(ClusterEventHandler.class);

  private final SchedulerCache cache;
  private final SchedulingQueue queue;
  private final Predicate<Pod> responsible;
  private final SchedulerMetrics metrics;
  private final ClusterObjects objects;
  private final List<ClusterStateListener> listeners = new CopyOnWriteArrayList<>();

  /**
   * @param responsible whether an unassigned pod belongs to one of this scheduler's profiles
   */
  public ClusterEventHandler(
      SchedulerCache cache,
      SchedulingQueue queue,
      Predicate<Pod> responsible,
      SchedulerMetrics metrics,
      ClusterObjects objects) {
    this.cache = cache;
    this.objects = objects;
    this.queue = queue;
    this.responsible = responsible;
    this.metrics = metrics;
  }

  public void addListener(ClusterStateListener l) {
    listeners.add(l);
  }

  // ---- other objects (PVCs, PVs, StorageClasses, CSINodes, CSIDrivers, Namespaces)

  public synchronized void onObjectAdd(HasMetadata obj) {
    try {
      ObjectKind<?> kind = objects.put(obj);
      event(ClusterEvent.of(kind.resource(), ActionType.ADD), null, obj);
    } catch (RuntimeException e) {
      log.error("object add failed kind={} name={}", obj.getKind(), name(obj), e);
    }
    dispatch();
  }

  public synchronized void onObjectUpdate(HasMetadata oldObj, HasMetadata newObj) {
    try {
      ObjectKind<?> kind = objects.put(newObj);
      event(ClusterEvent.of(kind.resource(), ActionType.UPDATE_OTHER), oldObj, newObj);
    } catch (RuntimeException e) {
      log.error("object update failed kind={} name={}", newObj.getKind(), name(newObj), e);
    }
    dispatch();
  }

  public synchronized void onObjectDelete(HasMetadata obj) {
    try {
      ObjectKind<?> kind = objects.remove(obj);
      event(ClusterEvent.of(kind.resource(), ActionType.DELETE), obj, null);
    } catch (RuntimeException e) {
      log.error("object delete failed kind={} name={}", obj.getKind(), name(obj), e);
    }
    dispatch();
  }

  // ---- nodes

  public synchronized void onNodeAdd(Node node) {
    try {
      cache.addNode(node);
      event(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node);
    } catch (RuntimeException e) {
      log.error("node add failed node={}", name(node), e);
    }
    notify(l -> l.onNodeAdd(node));
  }

  public synchronized void onNodeUpdate(Node oldNode, Node newNode) {
    try {
      cache.updateNode(oldNode, newNode);
      Set<ActionType> actions = nodeActions(oldNode, newNode);
      if (!actions.isEmpty()) {
        event(ClusterEvent.of(EventResource.NODE, actions), oldNode, newNode);
      }
    } catch (RuntimeException e) {
      log.error("node update failed node={}", name(newNode), e);
    }
    notify(l -> l.onNodeUpdate(oldNode, newNode));
  }

  public synchronized void onNodeDelete(Node node) {
    try {
      cache.removeNode(node);
      event(ClusterEvent.of(EventResource.NODE, ActionType.DELETE), node, null);
    } catch (RuntimeException e) {
      log.error("node delete failed node={}", name(node), e);
    }
    notify(l -> l.onNodeDelete(node));
  }

  /** The scheduling-relevant changes between two versions of a node. */
  static Set<ActionType> nodeActions(Node a, Node b) {
    EnumSet<ActionType> out = EnumSet.noneOf(ActionType.class);
    if (!Objects.equals(allocatable(a), allocatable(b))) {
      out.add(ActionType.UPDATE_NODE_ALLOCATABLE);
    }
    if (!Objects.equals(a.getMetadata().getLabels(), b.getMetadata().getLabels())) {
      out.add(ActionType.UPDATE_NODE_LABEL);
    }
    if (!Objects.equals(taints(a), taints(b)) || unschedulable(a) != unschedulable(b)) {
      out.add(ActionType.UPDATE_NODE_TAINT);
    }
    if (!Objects.equals(conditions(a), conditions(b))) {
      out.add(ActionType.UPDATE_NODE_CONDITION);
    }
    if (!Objects.equals(a.getMetadata().getAnnotations(), b.getMetadata().getAnnotations())) {
      out.add(ActionType.UPDATE_NODE_ANNOTATION);
    }
    return out;
  }

  private static @Nullable Object allocatable(Node n) {
    return n.getStatus() == null ? null : n.getStatus().getAllocatable();
  }

  private static @Nullable Object taints(Node n) {
    return n.getSpec() == null ? null : n.getSpec().getTaints();
  }

  private static boolean unschedulable(Node n) {
    return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
  }

  private static List<String> conditions(Node n) {
    List<String> out = new ArrayList<>();
    if (n.getStatus() != null && n.getStatus().getConditions() != null) {
      for (NodeCondition c : n.getStatus().getConditions()) {
        out.add(c.getType() + "=" + c.getStatus());
      }
    }
    return out;
  }

  // ---- pods

  public synchronized void onPodAdd(Pod pod) {
    try {
      if (isAssigned(pod)) {
        if (!isTerminal(pod)) {
          cache.addPod(pod);
          event(ClusterEvent.of(EventResource.ASSIGNED_POD, ActionType.ADD), null, pod);
        }
      } else if (responsible.test(pod) && !isTerminal(pod) && !isDeleting(pod)) {
        queue.add(pod);
      }
    } catch (RuntimeException e) {
      log.error("pod add failed pod={}", key(pod), e);
    }
    notify(l -> l.onPodAdd(pod));
  }

  public synchronized void onPodUpdate(Pod oldPod, Pod newPod) {
    try {
      boolean wasAssigned = isAssigned(oldPod);
      boolean assigned = isAssigned(newPod);
      if (assigned) {
        if (!wasAssigned) {
          // Bound: leaves the queue, joins the cache (confirming the assumed copy).
          queue.delete(newPod);
        }
        if (isTerminal(newPod)) {
          cache.removePod(newPod);
          event(ClusterEvent.of(EventResource.ASSIGNED_POD, ActionType.DELETE), oldPod, newPod);
        } else if (!wasAssigned) {
          cache.addPod(newPod);
          event(ClusterEvent.of(EventResource.ASSIGNED_POD, ActionType.ADD), null, newPod);
        } else {
          cache.updatePod(oldPod, newPod);
          Set<ActionType> actions = assignedPodActions(oldPod, newPod);
          if (!actions.isEmpty()) {
            event(ClusterEvent.of(EventResource.ASSIGNED_POD, actions), oldPod, newPod);
          }
        }
      } else if (responsible.test(newPod)) {
        if (isTerminal(newPod) || isDeleting(newPod)) {
          queue.delete(newPod);
        } else {
          queue.update(oldPod, newPod);
        }
      }
    } catch (RuntimeException e) {
      log.error("pod update failed pod={}", key(newPod), e);
    }
    notify(l -> l.onPodUpdate(oldPod, newPod));
  }

  public synchronized void onPodDelete(Pod pod) {
    try {
      if (isAssigned(pod)) {
        cache.removePod(pod);
        event(ClusterEvent.of(EventResource.ASSIGNED_POD, ActionType.DELETE), pod, null);
      } else {
        queue.delete(pod);
        // An assumed pod deleted before its binding was confirmed.
        if (cache.isAssumed(pod.getMetadata().getUid())) {
          cache.forgetPod(pod);
        }
      }
    } catch (RuntimeException e) {
      log.error("pod delete failed pod={}", key(pod), e);
    }
    notify(l -> l.onPodDelete(pod));
  }

  static Set<ActionType> assignedPodActions(Pod a, Pod b) {
    EnumSet<ActionType> out = EnumSet.noneOf(ActionType.class);
    if (!Objects.equals(a.getMetadata().getLabels(), b.getMetadata().getLabels())) {
      out.add(ActionType.UPDATE_POD_LABEL);
    }
    if (!Objects.equals(a.getMetadata().getAnnotations(), b.getMetadata().getAnnotations())) {
      out.add(ActionType.UPDATE_POD_ANNOTATION);
    }
    if (!Objects.equals(a.getSpec(), b.getSpec())) {
      try {
        Resources ra = Resources.forPod(a);
        Resources rb = Resources.forPod(b);
        if (!ra.equals(rb)) {
          out.add(ActionType.UPDATE_POD_SCALE_DOWN);
        }
      } catch (IllegalArgumentException e) {
        out.add(ActionType.UPDATE_OTHER);
      }
    }
    return out;
  }

  /** A cluster event held until the listeners have seen the change. */
  private record Pending(
      ClusterEvent event, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {}

  @GuardedBy("this")
  private final List<Pending> pending = new ArrayList<>(1);

  /**
   * Records an event for the queue; {@link #notify} or {@link #dispatch} passes it on once the
   * listeners (the plugins' own state, such as the device usage index) have taken the change. A pod
   * the event moves may be popped at once; it must not be tried against state that still lacks the
   * change, which would fail it again with no event left to retry it.
   */
  @GuardedBy("this")
  private void event(ClusterEvent e, @Nullable HasMetadata o, @Nullable HasMetadata n) {
    metrics.clusterEvent(e.label());
    pending.add(new Pending(e, o, n));
  }

  @GuardedBy("this")
  private void dispatch() {
    for (Pending p : pending) {
      try {
        queue.onEvent(p.event(), p.oldObj(), p.newObj());
      } catch (RuntimeException e) {
        log.error("queueing event failed event={}", p.event().label(), e);
      }
    }
    pending.clear();
  }

  @GuardedBy("this")
  private void notify(Consumer<ClusterStateListener> call) {
    for (ClusterStateListener l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        log.error("cluster state listener failed listener={}", l.getClass().getName(), e);
      }
    }
    dispatch();
  }

  static boolean isAssigned(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getNodeName() != null
        && !pod.getSpec().getNodeName().isEmpty();
  }

  static boolean isTerminal(Pod pod) {
    return PodPhases.isTerminal(pod);
  }

  static boolean isDeleting(Pod pod) {
    return PodPhases.isDeleting(pod);
  }

  private static String name(HasMetadata n) {
    return n.getMetadata() == null ? "?" : n.getMetadata().getName();
  }

  private static String key(Pod pod) {
    return pod.getMetadata() == null
        ? "?"
        : pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
