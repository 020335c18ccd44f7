package io.hami.framework.plugins.nodeunschedulable;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.Tolerations;
import java.util.List;

/**
 * Rejects cordoned nodes ({@code spec.unschedulable}) unless the pod tolerates the {@code
 * node.kubernetes.io/unschedulable:NoSchedule} taint.
 */
public final class NodeUnschedulablePlugin
    implements FilterPlugin, FilterEquivalence, EnqueueExtensions {
  public static final String NAME = "NodeUnschedulable";
  public static final String REASON = "node(s) were unschedulable";
  private static final Taint UNSCHEDULABLE_TAINT =
      new TaintBuilder()
          .withKey("node.kubernetes.io/unschedulable")
          .withEffect("NoSchedule")
          .build();

  public static Plugin create(FrameworkHandle handle) {
    return new NodeUnschedulablePlugin();
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, NodeUnschedulablePlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    if (!node.unschedulable()) {
      return Status.success();
    }
    if (Tolerations.anyTolerates(Tolerations.of(pod), UNSCHEDULABLE_TAINT)) {
      return Status.success();
    }
    return Status.unresolvable(REASON);
  }

  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    return Tolerations.of(pod);
  }

  private static boolean isUnschedulable(Node n) {
    return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.NODE, ActionType.ADD, ActionType.UPDATE_NODE_TAINT),
            (pod, oldObj, newObj) ->
                newObj instanceof Node n && !isUnschedulable(n)
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP));
  }
}
