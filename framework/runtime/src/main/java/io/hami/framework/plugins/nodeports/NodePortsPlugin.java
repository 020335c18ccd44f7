package io.hami.framework.plugins.nodeports;

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
import io.hami.framework.api.HostPort;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import java.util.List;

/** Rejects nodes where a host port the pod wants is already taken. */
public final class NodePortsPlugin
    implements PreFilterPlugin, FilterPlugin, FilterEquivalence, EnqueueExtensions {
  public static final String NAME = "NodePorts";
  public static final String REASON = "node(s) didn't have free ports for the requested pod ports";
  private static final StateKey<PortsState> KEY = StateKey.of("PreFilter" + NAME, PortsState.class);

  private record PortsState(List<HostPort> ports) implements StateData {}

  public static Plugin create(FrameworkHandle handle) {
    return new NodePortsPlugin();
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, NodePortsPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    List<HostPort> ports = HostPort.forPod(pod);
    if (ports.isEmpty()) {
      return PreFilterResult.skip();
    }
    state.write(KEY, new PortsState(ports));
    return PreFilterResult.allNodes();
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    PortsState s = state.get(KEY);
    List<HostPort> wanted = s != null ? s.ports() : HostPort.forPod(pod);
    for (HostPort want : wanted) {
      for (HostPort used : node.usedPorts()) {
        if (want.conflictsWith(used)) {
          return Status.unschedulable(REASON);
        }
      }
    }
    return Status.success();
  }

  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    PortsState s = state.get(KEY);
    return s != null ? s.ports() : HostPort.forPod(pod);
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.ASSIGNED_POD, ActionType.DELETE),
            (pod, oldObj, newObj) ->
                oldObj instanceof Pod p && !HostPort.forPod(p).isEmpty()
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP),
        ClusterEventWithHint.of(ClusterEvent.of(EventResource.NODE, ActionType.ADD)));
  }
}
