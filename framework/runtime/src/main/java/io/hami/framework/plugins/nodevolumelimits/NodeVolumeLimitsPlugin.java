package io.hami.framework.plugins.nodevolumelimits;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriver;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
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
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.Volumes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * kube-scheduler's NodeVolumeLimits (CSI limits): counts the distinct CSI volumes ({@code
 * driver/volumeHandle}) that the node's pods use per driver, through their claims and PVs, adds the
 * pod's new ones and rejects the node when a driver's {@code allocatable.count} in the node's
 * CSINode would be exceeded. An unbound claim counts under its class's provisioner, as one new
 * volume. A node without a CSINode, or a driver without a count, has no limit.
 *
 * <p>Not implemented from kube: in-tree volumes migrated to CSI (their translation) and
 * VolumeAttachments of volumes still attached to the node without a pod. CSI inline volumes are not
 * attached and not counted, as in kube.
 */
public final class NodeVolumeLimitsPlugin
    implements PreFilterPlugin, FilterPlugin, FilterEquivalence, EnqueueExtensions {
  public static final String NAME = "NodeVolumeLimits";
  public static final String REASON_MAX_VOLUME_COUNT = "node(s) exceed max volume count";

  private static final StateKey<NewVolumes> KEY = StateKey.of("PreFilter" + NAME, NewVolumes.class);

  /** The pod's CSI volumes: unique name ({@code driver/handle}) to driver. */
  private record NewVolumes(Map<String, String> volumes) implements StateData {}

  private final ObjectLister<PersistentVolumeClaim> pvcs;
  private final ObjectLister<PersistentVolume> pvs;
  private final ObjectLister<StorageClass> classes;
  private final ObjectLister<CSINode> csiNodes;

  NodeVolumeLimitsPlugin(FrameworkHandle handle) {
    this.pvcs = handle.lister(ObjectKind.PERSISTENT_VOLUME_CLAIM);
    this.pvs = handle.lister(ObjectKind.PERSISTENT_VOLUME);
    this.classes = handle.lister(ObjectKind.STORAGE_CLASS);
    this.csiNodes = handle.lister(ObjectKind.CSI_NODE);
  }

  public static Plugin create(FrameworkHandle handle) {
    return new NodeVolumeLimitsPlugin(handle);
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, NodeVolumeLimitsPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    if (!Volumes.hasClaims(pod)) {
      return PreFilterResult.skip();
    }
    Map<String, String> volumes = new HashMap<>();
    String problem = collect(pod, true, volumes);
    if (problem != null) {
      return PreFilterResult.of(Status.unresolvable(problem));
    }
    if (volumes.isEmpty()) {
      return PreFilterResult.skip();
    }
    state.write(KEY, new NewVolumes(Map.copyOf(volumes)));
    return PreFilterResult.allNodes();
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    NewVolumes s = state.get(KEY);
    if (s == null) {
      return Status.success();
    }
    Map<String, Integer> limits = limits(csiNodes.get(null, node.name()));
    if (limits.isEmpty()) {
      return Status.success();
    }
    Map<String, String> attached = new HashMap<>();
    for (PodInfo p : node.pods()) {
      collect(p.pod(), false, attached);
    }
    Map<String, Integer> attachedCount = new HashMap<>();
    for (String driver : attached.values()) {
      attachedCount.merge(driver, 1, Integer::sum);
    }
    Map<String, Integer> newCount = new HashMap<>();
    for (Map.Entry<String, String> e : s.volumes().entrySet()) {
      if (!attached.containsKey(e.getKey())) {
        newCount.merge(e.getValue(), 1, Integer::sum);
      }
    }
    for (Map.Entry<String, Integer> e : newCount.entrySet()) {
      Integer max = limits.get(e.getKey());
      if (max != null && attachedCount.getOrDefault(e.getKey(), 0) + e.getValue() > max) {
        return Status.unschedulable(REASON_MAX_VOLUME_COUNT);
      }
    }
    return Status.success();
  }

  /** Each driver's volume limit in {@code csiNode}; empty for none. */
  private static Map<String, Integer> limits(@Nullable CSINode csiNode) {
    if (csiNode == null || csiNode.getSpec() == null || csiNode.getSpec().getDrivers() == null) {
      return Map.of();
    }
    Map<String, Integer> out = new HashMap<>();
    for (CSINodeDriver d : csiNode.getSpec().getDrivers()) {
      if (d.getName() != null
          && d.getAllocatable() != null
          && d.getAllocatable().getCount() != null) {
        out.put(d.getName(), d.getAllocatable().getCount());
      }
    }
    return out;
  }

  /**
   * Puts the pod's CSI volumes into {@code out}. For the pod being scheduled ({@code newPod}), a
   * missing claim or an ephemeral claim it does not own is returned as the problem; for a placed
   * pod such volumes are not counted.
   */
  private @Nullable String collect(Pod pod, boolean newPod, Map<String, String> out) {
    String ns = pod.getMetadata().getNamespace();
    for (Volume v : Volumes.of(pod)) {
      String claimName = Volumes.claimName(pod, v);
      if (claimName == null) {
        continue;
      }
      PersistentVolumeClaim claim = pvcs.get(ns, claimName);
      if (claim == null) {
        if (newPod) {
          return "looking up PVC "
              + ns
              + "/"
              + claimName
              + ": persistentvolumeclaim \""
              + claimName
              + "\" not found";
        }
        continue;
      }
      if (v.getEphemeral() != null && !Volumes.ownedBy(claim, pod)) {
        if (newPod) {
          return "PVC "
              + ns
              + "/"
              + claimName
              + " was not created for pod "
              + ns
              + "/"
              + pod.getMetadata().getName()
              + " (pod is not owner)";
        }
        continue;
      }
      String[] driverAndHandle = driverInfo(claim);
      if (driverAndHandle != null) {
        out.put(driverAndHandle[0] + "/" + driverAndHandle[1], driverAndHandle[0]);
      }
    }
    return null;
  }

  /** The claim's CSI driver and volume handle, or null when it is no CSI volume. */
  private String @Nullable [] driverInfo(PersistentVolumeClaim claim) {
    String pvName = Volumes.volumeName(claim);
    PersistentVolume pv = pvName.isEmpty() ? null : pvs.get(null, pvName);
    if (pv == null) {
      return fromClass(claim);
    }
    if (pv.getSpec() == null || pv.getSpec().getCsi() == null) {
      return null;
    }
    String driver = pv.getSpec().getCsi().getDriver();
    String handle = pv.getSpec().getCsi().getVolumeHandle();
    if (driver == null || driver.isEmpty() || handle == null || handle.isEmpty()) {
      return null;
    }
    return new String[] {driver, handle};
  }

  /**
   * An unbound claim counts under its class's provisioner with a handle of its own (prefixed so it
   * cannot equal a real handle); without a class it must be bound before scheduling and is not
   * counted.
   */
  private String @Nullable [] fromClass(PersistentVolumeClaim claim) {
    String className = Volumes.className(claim);
    StorageClass sc = className.isEmpty() ? null : classes.get(null, className);
    if (sc == null || sc.getProvisioner() == null || sc.getProvisioner().isEmpty()) {
      return null;
    }
    return new String[] {
      sc.getProvisioner(),
      "unbound-" + claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName()
    };
  }

  /**
   * None for pods with CSI volumes: the verdict reads CSINodes and the claims of the node's pods,
   * which change apart from the node.
   */
  @Override
  public @Nullable Object equivalenceClass(CycleState state, Pod pod) {
    return state.get(KEY) == null ? NAME : null;
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.CSI_NODE, ActionType.ADD, ActionType.UPDATE_OTHER)),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.ASSIGNED_POD, ActionType.DELETE),
            (pod, oldObj, newObj) ->
                oldObj instanceof Pod p && Volumes.hasClaims(p)
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, ActionType.UPDATE_OTHER),
            NodeVolumeLimitsPlugin::claimOfPod));
  }

  private static QueueingHint claimOfPod(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (!(newObj instanceof PersistentVolumeClaim c)
        || !Objects.equals(c.getMetadata().getNamespace(), pod.getMetadata().getNamespace())) {
      return QueueingHint.SKIP;
    }
    for (Volume v : Volumes.of(pod)) {
      if (c.getMetadata().getName().equals(Volumes.claimName(pod, v))) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.SKIP;
  }
}
