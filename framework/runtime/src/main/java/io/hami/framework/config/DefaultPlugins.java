package io.hami.framework.config;

import com.google.common.collect.ImmutableList;

/**
 * The plugins every profile starts with, enabled at every point they implement, before the
 * profile's own {@code multiPoint} and per-point lists are applied. Ordinary pod constraints
 * (scheduling gates, nodeSelector, affinity, pod affinity, topology spread, taints, resources, host
 * ports, unschedulable nodes) and pod groups (GangScheduling, a no-op for pods without one) hold
 * with these, a pod that fits nowhere may preempt lower-priority pods (DefaultPreemption), nodes
 * are ranked by balance and image locality as well, and a pod setting a field that kube-scheduler
 * evaluates and these do not is refused (PodSpecSupport). The order is kube-scheduler's.
 */
public final class DefaultPlugins {
  public static final String SCHEDULING_GATES = "SchedulingGates";
  public static final String PRIORITY_SORT = "PrioritySort";
  public static final String POD_SPEC_SUPPORT = "PodSpecSupport";
  public static final String NODE_UNSCHEDULABLE = "NodeUnschedulable";
  public static final String NODE_NAME = "NodeName";
  public static final String TAINT_TOLERATION = "TaintToleration";
  public static final String NODE_AFFINITY = "NodeAffinity";
  public static final String NODE_PORTS = "NodePorts";
  public static final String NODE_RESOURCES_FIT = "NodeResourcesFit";
  public static final String VOLUME_RESTRICTIONS = "VolumeRestrictions";
  public static final String NODE_VOLUME_LIMITS = "NodeVolumeLimits";
  public static final String VOLUME_BINDING = "VolumeBinding";
  public static final String VOLUME_ZONE = "VolumeZone";
  public static final String POD_TOPOLOGY_SPREAD = "PodTopologySpread";
  public static final String INTER_POD_AFFINITY = "InterPodAffinity";
  public static final String DEFAULT_PREEMPTION = "DefaultPreemption";
  public static final String NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation";
  public static final String IMAGE_LOCALITY = "ImageLocality";
  public static final String DEFAULT_BINDER = "DefaultBinder";
  public static final String GANG_SCHEDULING = "GangScheduling";

  /** The default multi-point plugins with their score weights, in run order. */
  public static final ImmutableList<PluginRef> MULTI_POINT =
      ImmutableList.of(
          PluginRef.of(SCHEDULING_GATES),
          PluginRef.of(PRIORITY_SORT),
          PluginRef.of(POD_SPEC_SUPPORT),
          PluginRef.of(NODE_UNSCHEDULABLE),
          PluginRef.of(NODE_NAME),
          PluginRef.of(TAINT_TOLERATION, 3),
          PluginRef.of(NODE_AFFINITY, 2),
          PluginRef.of(NODE_PORTS),
          PluginRef.of(NODE_RESOURCES_FIT, 1),
          PluginRef.of(VOLUME_RESTRICTIONS),
          PluginRef.of(NODE_VOLUME_LIMITS),
          PluginRef.of(VOLUME_BINDING),
          PluginRef.of(VOLUME_ZONE),
          PluginRef.of(POD_TOPOLOGY_SPREAD, 2),
          PluginRef.of(INTER_POD_AFFINITY, 2),
          PluginRef.of(DEFAULT_PREEMPTION),
          PluginRef.of(NODE_RESOURCES_BALANCED_ALLOCATION, 1),
          PluginRef.of(IMAGE_LOCALITY, 1),
          PluginRef.of(DEFAULT_BINDER),
          PluginRef.of(GANG_SCHEDULING));

  private DefaultPlugins() {}
}
