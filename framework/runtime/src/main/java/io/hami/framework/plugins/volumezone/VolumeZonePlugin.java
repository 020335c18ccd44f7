package io.hami.framework.plugins.volumezone;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
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
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.Volumes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * kube-scheduler's VolumeZone: a node that carries zone or region labels must carry, for every
 * topology label of the pod's bound PVs, one of the PV's values ({@code a__b} lists several). Beta
 * PV labels also match the node's GA label. Unbound claims of WaitForFirstConsumer classes are left
 * to VolumeBinding; a node without any topology label fits.
 */
public final class VolumeZonePlugin
    implements PreFilterPlugin, FilterPlugin, FilterEquivalence, EnqueueExtensions {
  public static final String NAME = "VolumeZone";
  public static final String REASON_CONFLICT = "node(s) had no available volume zone";

  public static final String ZONE = "topology.kubernetes.io/zone";
  public static final String REGION = "topology.kubernetes.io/region";
  public static final String BETA_ZONE = "failure-domain.beta.kubernetes.io/zone";
  public static final String BETA_REGION = "failure-domain.beta.kubernetes.io/region";

  /** The topology labels, in kube's order. */
  static final ImmutableList<String> TOPOLOGY_LABELS =
      ImmutableList.of(BETA_ZONE, BETA_REGION, ZONE, REGION);

  private static final ImmutableMap<String, String> TO_GA =
      ImmutableMap.of(BETA_ZONE, ZONE, BETA_REGION, REGION);

  private static final StateKey<ZoneState> KEY = StateKey.of("PreFilter" + NAME, ZoneState.class);

  /** One topology label of one PV and the values it allows. */
  record PvTopology(String pvName, String key, Set<String> values) {}

  private record ZoneState(List<PvTopology> topologies) implements StateData {}

  private final ObjectLister<PersistentVolumeClaim> pvcs;
  private final ObjectLister<PersistentVolume> pvs;
  private final ObjectLister<StorageClass> classes;

  VolumeZonePlugin(FrameworkHandle handle) {
    this.pvcs = handle.lister(ObjectKind.PERSISTENT_VOLUME_CLAIM);
    this.pvs = handle.lister(ObjectKind.PERSISTENT_VOLUME);
    this.classes = handle.lister(ObjectKind.STORAGE_CLASS);
  }

  public static Plugin create(FrameworkHandle handle) {
    return new VolumeZonePlugin(handle);
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, VolumeZonePlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    List<PvTopology> topologies = new ArrayList<>();
    String ns = pod.getMetadata().getNamespace();
    for (Volume v : Volumes.of(pod)) {
      if (v.getPersistentVolumeClaim() == null) {
        continue;
      }
      String claimName = v.getPersistentVolumeClaim().getClaimName();
      if (claimName == null || claimName.isEmpty()) {
        return PreFilterResult.of(Status.unresolvable("PersistentVolumeClaim had no name"));
      }
      PersistentVolumeClaim claim = pvcs.get(ns, claimName);
      if (claim == null) {
        return PreFilterResult.of(
            Status.unresolvable("persistentvolumeclaim \"" + claimName + "\" not found"));
      }
      String pvName = Volumes.volumeName(claim);
      if (pvName.isEmpty()) {
        String className = Volumes.className(claim);
        if (className.isEmpty()) {
          return PreFilterResult.of(
              Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name"));
        }
        StorageClass sc = classes.get(null, className);
        if (sc == null) {
          return PreFilterResult.of(
              Status.unresolvable("storageclass.storage.k8s.io \"" + className + "\" not found"));
        }
        if (sc.getVolumeBindingMode() == null) {
          return PreFilterResult.of(
              Status.unresolvable(
                  "VolumeBindingMode not set for StorageClass \"" + className + "\""));
        }
        if (Volumes.waitsForFirstConsumer(sc)) {
          continue;
        }
        return PreFilterResult.of(Status.unresolvable("PersistentVolume had no name"));
      }
      PersistentVolume pv = pvs.get(null, pvName);
      if (pv == null) {
        return PreFilterResult.of(
            Status.unresolvable("persistentvolume \"" + pvName + "\" not found"));
      }
      topologies.addAll(topologiesOf(pv));
    }
    if (topologies.isEmpty()) {
      return PreFilterResult.skip();
    }
    state.write(KEY, new ZoneState(List.copyOf(topologies)));
    return PreFilterResult.allNodes();
  }

  /** The PV's topology labels; a malformed value (an empty zone in a list) is ignored. */
  static List<PvTopology> topologiesOf(PersistentVolume pv) {
    Map<String, String> labels = pv.getMetadata().getLabels();
    if (labels == null) {
      return List.of();
    }
    List<PvTopology> out = new ArrayList<>();
    for (String key : TOPOLOGY_LABELS) {
      String value = labels.get(key);
      if (value == null) {
        continue;
      }
      Set<String> zones = zones(value);
      if (zones != null) {
        out.add(new PvTopology(pv.getMetadata().getName(), key, zones));
      }
    }
    return out;
  }

  /** Splits {@code a__b__c}; null when a part is empty. */
  private static @Nullable Set<String> zones(String value) {
    Set<String> out = new HashSet<>();
    for (String z : value.split("__", -1)) {
      String t = z.trim();
      if (t.isEmpty()) {
        return null;
      }
      out.add(t);
    }
    return out;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    ZoneState s = state.get(KEY);
    if (s == null) {
      return Status.success();
    }
    Map<String, String> labels = node.labels();
    if (!hasTopology(labels)) {
      return Status.success();
    }
    for (PvTopology t : s.topologies()) {
      String v = labels.get(t.key());
      if (v == null && TO_GA.containsKey(t.key())) {
        v = labels.get(TO_GA.get(t.key()));
      }
      if (v == null || !t.values().contains(v)) {
        return Status.unresolvable(REASON_CONFLICT);
      }
    }
    return Status.success();
  }

  private static boolean hasTopology(@Nullable Map<String, String> labels) {
    if (labels == null) {
      return false;
    }
    for (String k : TOPOLOGY_LABELS) {
      if (labels.containsKey(k)) {
        return true;
      }
    }
    return false;
  }

  /** The topologies of the pod's PVs, all that Filter reads besides the node's labels. */
  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    ZoneState s = state.get(KEY);
    return s == null ? List.of() : s.topologies();
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.STORAGE_CLASS, ActionType.ADD),
            (pod, oldObj, newObj) ->
                newObj instanceof StorageClass sc && Volumes.waitsForFirstConsumer(sc)
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, ActionType.UPDATE_OTHER),
            VolumeZonePlugin::claimOfPod),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.PERSISTENT_VOLUME, ActionType.ADD, ActionType.UPDATE_OTHER),
            VolumeZonePlugin::afterPvChange),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.NODE, ActionType.ADD, ActionType.UPDATE_NODE_LABEL),
            VolumeZonePlugin::afterNodeChange));
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

  /** Queues on a new PV, or one whose topology labels changed. */
  private static QueueingHint afterPvChange(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (!(newObj instanceof PersistentVolume pv)) {
      return QueueingHint.SKIP;
    }
    if (!(oldObj instanceof PersistentVolume old)) {
      return QueueingHint.QUEUE;
    }
    return topologiesOf(old).equals(topologiesOf(pv)) ? QueueingHint.SKIP : QueueingHint.QUEUE;
  }

  /** Queues on a new node, or one whose topology labels changed. */
  private static QueueingHint afterNodeChange(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (!(newObj instanceof Node n)) {
      return QueueingHint.SKIP;
    }
    if (!(oldObj instanceof Node old)) {
      return QueueingHint.QUEUE;
    }
    for (String k : TOPOLOGY_LABELS) {
      if (!Objects.equals(label(old, k), label(n, k))) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.SKIP;
  }

  private static @Nullable String label(Node n, String key) {
    Map<String, String> l = n.getMetadata().getLabels();
    return l == null ? null : l.get(key);
  }
}
