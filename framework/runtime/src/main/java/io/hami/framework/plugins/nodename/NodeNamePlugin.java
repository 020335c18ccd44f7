package io.hami.framework.plugins.nodename;

import io.fabric8.kubernetes.api.model.Pod;
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
import io.hami.framework.api.Status;
import java.util.List;

/** Keeps a pod that names a node ({@code spec.nodeName}) off every other node. */
public final class NodeNamePlugin implements FilterPlugin, FilterEquivalence, EnqueueExtensions {
  public static final String NAME = "NodeName";
  public static final String REASON = "node(s) didn't match the requested node name";

  public static Plugin create(FrameworkHandle handle) {
    return new NodeNamePlugin();
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, NodeNamePlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    String wanted = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (wanted == null || wanted.isEmpty() || wanted.equals(node.name())) {
      return Status.success();
    }
    return Status.unresolvable(REASON);
  }

  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    String wanted = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return wanted == null ? "" : wanted;
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(ClusterEventWithHint.of(ClusterEvent.of(EventResource.NODE, ActionType.ADD)));
  }
}
