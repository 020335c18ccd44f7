package io.hami.framework.plugins.volumerestrictions;

import io.fabric8.kubernetes.api.model.AWSElasticBlockStoreVolumeSource;
import io.fabric8.kubernetes.api.model.GCEPersistentDiskVolumeSource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ISCSIVolumeSource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.RBDVolumeSource;
import io.fabric8.kubernetes.api.model.Volume;
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
import io.hami.framework.api.PreFilterExtensions;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.Volumes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * kube-scheduler's VolumeRestrictions: a ReadWriteOncePod claim already used by another pod makes
 * the pod unschedulable everywhere, and an in-tree GCE PD, AWS EBS, RBD or iSCSI volume that a pod
 * on the node already mounts (read-write on either side) rules that node out.
 */
public final class VolumeRestrictionsPlugin
    implements PreFilterPlugin,
        PreFilterExtensions,
        FilterPlugin,
        FilterEquivalence,
        EnqueueExtensions {
  public static final String NAME = "VolumeRestrictions";
  public static final String REASON_DISK_CONFLICT = "node(s) had no available disk";
  public static final String REASON_RWOP_CONFLICT =
      "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

  private static final StateKey<RwopState> KEY = StateKey.of("PreFilter" + NAME, RwopState.class);

  /**
   * The pod's ReadWriteOncePod claims and how many pods already use them.
   *
   * @param claims the claims' names, in the pod's namespace
   * @param conflicts pods (counted once per claim) using one of them
   */
  private record RwopState(Set<String> claims, int conflicts) implements StateData {}

  private final ObjectLister<PersistentVolumeClaim> pvcs;

  VolumeRestrictionsPlugin(FrameworkHandle handle) {
    this.pvcs = handle.lister(ObjectKind.PERSISTENT_VOLUME_CLAIM);
  }

  public static Plugin create(FrameworkHandle handle) {
    return new VolumeRestrictionsPlugin(handle);
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, VolumeRestrictionsPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    boolean needsDiskCheck = false;
    Set<String> rwop = new TreeSet<>();
    String ns = pod.getMetadata().getNamespace();
    for (Volume v : Volumes.of(pod)) {
      needsDiskCheck |= isDisk(v);
      if (v.getPersistentVolumeClaim() == null) {
        continue;
      }
      String name = v.getPersistentVolumeClaim().getClaimName();
      PersistentVolumeClaim claim = name == null ? null : pvcs.get(ns, name);
      if (claim == null) {
        return PreFilterResult.of(
            Status.unresolvable("persistentvolumeclaim \"" + name + "\" not found"));
      }
      if (Volumes.readWriteOncePod(claim)) {
        rwop.add(name);
      }
    }
    int conflicts = 0;
    if (!rwop.isEmpty()) {
      for (String claim : rwop) {
        if (usedByAnyPod(snapshot, ns, claim, pod.getMetadata().getUid())) {
          conflicts++;
        }
      }
    }
    if (!needsDiskCheck && conflicts == 0) {
      return PreFilterResult.skip();
    }
    state.write(KEY, new RwopState(rwop, conflicts));
    return PreFilterResult.allNodes();
  }

  private static boolean usedByAnyPod(Snapshot snapshot, String ns, String claim, String selfUid) {
    for (NodeInfo n : snapshot.nodes()) {
      for (PodInfo p : n.pods()) {
        if (!p.uid().equals(selfUid) && uses(p.pod(), ns, claim)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean uses(Pod pod, String ns, String claim) {
    if (!ns.equals(pod.getMetadata().getNamespace())) {
      return false;
    }
    for (Volume v : Volumes.of(pod)) {
      if (claim.equals(Volumes.claimName(pod, v))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd, NodeInfo node) {
    return adjust(state, podToSchedule, podToAdd.pod(), 1);
  }

  @Override
  public Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove, NodeInfo node) {
    return adjust(state, podToSchedule, podToRemove.pod(), -1);
  }

  private static Status adjust(CycleState state, Pod pod, Pod other, int delta) {
    RwopState s = state.get(KEY);
    if (s == null) {
      return Status.success();
    }
    int n = 0;
    for (String claim : s.claims()) {
      if (uses(other, pod.getMetadata().getNamespace(), claim)) {
        n++;
      }
    }
    if (n > 0) {
      state.write(KEY, new RwopState(s.claims(), s.conflicts() + delta * n));
    }
    return Status.success();
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    for (Volume v : Volumes.of(pod)) {
      if (!isDisk(v)) {
        continue;
      }
      for (PodInfo existing : node.pods()) {
        if (conflicts(v, existing.pod())) {
          return Status.unschedulable(REASON_DISK_CONFLICT);
        }
      }
    }
    RwopState s = state.get(KEY);
    if (s != null && s.conflicts() > 0) {
      return Status.unschedulable(REASON_RWOP_CONFLICT);
    }
    return Status.success();
  }

  private static boolean isDisk(Volume v) {
    return v.getGcePersistentDisk() != null
        || v.getAwsElasticBlockStore() != null
        || v.getRbd() != null
        || v.getIscsi() != null;
  }

  /** Whether {@code v} and a volume of {@code other} are the same disk, not both read-only. */
  static boolean conflicts(Volume v, Pod other) {
    for (Volume e : Volumes.of(other)) {
      GCEPersistentDiskVolumeSource gce = v.getGcePersistentDisk();
      GCEPersistentDiskVolumeSource egce = e.getGcePersistentDisk();
      if (gce != null
          && egce != null
          && Objects.equals(gce.getPdName(), egce.getPdName())
          && !(readOnly(gce.getReadOnly()) && readOnly(egce.getReadOnly()))) {
        return true;
      }
      AWSElasticBlockStoreVolumeSource ebs = v.getAwsElasticBlockStore();
      AWSElasticBlockStoreVolumeSource eebs = e.getAwsElasticBlockStore();
      if (ebs != null && eebs != null && Objects.equals(ebs.getVolumeID(), eebs.getVolumeID())) {
        return true;
      }
      ISCSIVolumeSource iscsi = v.getIscsi();
      ISCSIVolumeSource eiscsi = e.getIscsi();
      if (iscsi != null
          && eiscsi != null
          && Objects.equals(iscsi.getIqn(), eiscsi.getIqn())
          && !(readOnly(iscsi.getReadOnly()) && readOnly(eiscsi.getReadOnly()))) {
        return true;
      }
      RBDVolumeSource rbd = v.getRbd();
      RBDVolumeSource erbd = e.getRbd();
      if (rbd != null
          && erbd != null
          && overlap(rbd.getMonitors(), erbd.getMonitors())
          && pool(rbd).equals(pool(erbd))
          && Objects.equals(rbd.getImage(), erbd.getImage())
          && !(readOnly(rbd.getReadOnly()) && readOnly(erbd.getReadOnly()))) {
        return true;
      }
    }
    return false;
  }

  private static boolean readOnly(@Nullable Boolean b) {
    return Boolean.TRUE.equals(b);
  }

  /** The RADOS pool, {@code rbd} when unset (the API default). */
  private static String pool(RBDVolumeSource rbd) {
    return rbd.getPool() == null || rbd.getPool().isEmpty() ? "rbd" : rbd.getPool();
  }

  private static boolean overlap(@Nullable List<String> a, @Nullable List<String> b) {
    if (a == null || b == null) {
      return false;
    }
    for (String m : a) {
      if (b.contains(m)) {
        return true;
      }
    }
    return false;
  }

  /** The pod's in-tree disks and whether its ReadWriteOncePod claims are in use. */
  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    List<Volume> disks = new ArrayList<>();
    for (Volume v : Volumes.of(pod)) {
      if (isDisk(v)) {
        disks.add(v);
      }
    }
    RwopState s = state.get(KEY);
    return List.of(disks, s != null && s.conflicts() > 0);
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.ASSIGNED_POD, ActionType.DELETE),
            VolumeRestrictionsPlugin::afterPodDeleted),
        ClusterEventWithHint.of(ClusterEvent.of(EventResource.NODE, ActionType.ADD)),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, ActionType.UPDATE_OTHER),
            VolumeRestrictionsPlugin::claimOfPod));
  }

  /** Queues the pod when the deleted pod held a disk or claim the pod wants. */
  private static QueueingHint afterPodDeleted(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (!(oldObj instanceof Pod deleted)) {
      return QueueingHint.SKIP;
    }
    for (Volume v : Volumes.of(pod)) {
      String claim = Volumes.claimName(pod, v);
      if (claim != null && uses(deleted, pod.getMetadata().getNamespace(), claim)) {
        return QueueingHint.QUEUE;
      }
      if (isDisk(v) && conflicts(v, deleted)) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.SKIP;
  }

  private static QueueingHint claimOfPod(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (newObj instanceof PersistentVolumeClaim c
        && uses(pod, c.getMetadata().getNamespace(), c.getMetadata().getName())) {
      return QueueingHint.QUEUE;
    }
    return QueueingHint.SKIP;
  }
}
