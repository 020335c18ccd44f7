package io.hami.framework.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TopologySelectorLabelRequirement;
import io.fabric8.kubernetes.api.model.TopologySelectorTerm;
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
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.Volumes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * kube-scheduler's VolumeBinding: a pod's claims (PersistentVolumeClaims and generic ephemeral
 * volumes) must exist; bound claims need a PV whose node affinity admits the node; unbound claims
 * of an Immediate class make the pod wait for the PV controller; unbound WaitForFirstConsumer
 * claims need, on the node, an Available PV to bind (the smallest that fits) or a class that can
 * provision. Reserve promises the chosen PVs to the pod ({@link AssumedVolumes}); PreBind writes
 * the bindings and waits for the claims to be Bound ({@link VolumeBinder}).
 *
 * <p>Not implemented from kube: storage capacity (CSIStorageCapacity) checks and scoring, and
 * narrowing PreFilter's node set from bound PVs' node affinity; Filter checks every node instead.
 */
public final class VolumeBindingPlugin
    implements PreFilterPlugin,
        FilterPlugin,
        FilterEquivalence,
        ReservePlugin,
        PreBindPlugin,
        EnqueueExtensions {
  public static final String NAME = "VolumeBinding";

  public static final String REASON_BIND_CONFLICT =
      "node(s) didn't find available persistent volumes to bind";
  public static final String REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict";
  public static final String REASON_PV_NOT_EXIST =
      "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
  public static final String REASON_UNBOUND_IMMEDIATE =
      "pod has unbound immediate PersistentVolumeClaims";

  private static final StateKey<ClaimState> KEY = StateKey.of("PreFilter" + NAME, ClaimState.class);

  private final ObjectLister<PersistentVolumeClaim> pvcs;
  private final ObjectLister<PersistentVolume> pvs;
  private final ObjectLister<StorageClass> classes;
  private final AssumedVolumes assumed = new AssumedVolumes();
  private final VolumeBinder binder;

  VolumeBindingPlugin(VolumeBindingArgs args, FrameworkHandle handle, Duration pollInterval) {
    this.pvcs = handle.lister(ObjectKind.PERSISTENT_VOLUME_CLAIM);
    this.pvs = handle.lister(ObjectKind.PERSISTENT_VOLUME);
    this.classes = handle.lister(ObjectKind.STORAGE_CLASS);
    this.binder =
        new VolumeBinder(
            handle, pvcs, pvs, Duration.ofSeconds(args.bindTimeoutSeconds()), pollInterval);
  }

  public static Plugin create(VolumeBindingArgs args, FrameworkHandle handle) {
    return new VolumeBindingPlugin(args, handle, Duration.ofSeconds(1));
  }

  public static PluginRegistration<VolumeBindingArgs> registration() {
    return PluginRegistration.of(
        NAME, VolumeBindingArgs.class, VolumeBindingArgs.defaults(), VolumeBindingPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  // ---- PreFilter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    String ns = pod.getMetadata().getNamespace();
    Map<String, PersistentVolumeClaim> claims = new LinkedHashMap<>();
    for (Volume v : Volumes.of(pod)) {
      String name = Volumes.claimName(pod, v);
      if (name == null || claims.containsKey(name)) {
        continue;
      }
      boolean ephemeral = v.getEphemeral() != null;
      PersistentVolumeClaim claim = pvcs.get(ns, name);
      String problem = problem(pod, name, claim, ephemeral);
      if (problem != null) {
        return PreFilterResult.of(Status.unresolvable(problem));
      }
      claims.put(name, claim);
    }
    if (claims.isEmpty()) {
      return PreFilterResult.skip();
    }
    List<ClaimState.BoundClaim> bound = new ArrayList<>();
    List<PersistentVolumeClaim> delayed = new ArrayList<>();
    Map<String, StorageClass> delayedClasses = new HashMap<>();
    for (PersistentVolumeClaim claim : claims.values()) {
      if (VolumeBinder.fullyBound(claim)) {
        bound.add(new ClaimState.BoundClaim(claim, pvs.get(null, Volumes.volumeName(claim))));
        continue;
      }
      String className = Volumes.className(claim);
      StorageClass sc = className.isEmpty() ? null : classes.get(null, className);
      // A pre-bound claim (spec.volumeName set) waits for the PV controller, as an Immediate one.
      if (!Volumes.waitsForFirstConsumer(sc) || !Volumes.volumeName(claim).isEmpty()) {
        return PreFilterResult.of(Status.unresolvable(REASON_UNBOUND_IMMEDIATE));
      }
      delayed.add(claim);
      delayedClasses.put(className, sc);
    }
    Map<String, List<PersistentVolume>> pvsByClass = new HashMap<>();
    if (!delayed.isEmpty()) {
      for (PersistentVolume pv : pvs.list()) {
        String c = Volumes.className(pv);
        if (delayedClasses.containsKey(c)) {
          pvsByClass.computeIfAbsent(c, k -> new ArrayList<>()).add(pv);
        }
      }
    }
    state.write(KEY, new ClaimState(bound, delayed, delayedClasses, pvsByClass));
    return PreFilterResult.allNodes();
  }

  /** Why the claim {@code name} cannot be used by the pod, in kube's words, or null. */
  private static @Nullable String problem(
      Pod pod, String name, @Nullable PersistentVolumeClaim claim, boolean ephemeral) {
    if (claim == null) {
      return ephemeral
          ? "waiting for ephemeral volume controller to create the persistentvolumeclaim \""
              + name
              + "\""
          : "persistentvolumeclaim \"" + name + "\" not found";
    }
    if (ephemeral && !Volumes.ownedBy(claim, pod)) {
      String ns = pod.getMetadata().getNamespace();
      return "PVC "
          + ns
          + "/"
          + name
          + " was not created for pod "
          + ns
          + "/"
          + pod.getMetadata().getName()
          + " (pod is not owner)";
    }
    if (claim.getStatus() != null && "Lost".equals(claim.getStatus().getPhase())) {
      return "persistentvolumeclaim \""
          + name
          + "\" bound to non-existent persistentvolume \""
          + Volumes.volumeName(claim)
          + "\"";
    }
    if (Volumes.deleting(claim)) {
      return "persistentvolumeclaim \"" + name + "\" is being deleted";
    }
    return null;
  }

  // ---- Filter

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    ClaimState s = state.get(KEY);
    if (s == null) {
      return Status.success();
    }
    VolumeMatcher.NodeRef ref = new VolumeMatcher.NodeRef(node.name(), node.labels());
    boolean nodeConflict = false;
    boolean pvMissing = false;
    for (ClaimState.BoundClaim b : s.bound) {
      if (b.pv() == null) {
        pvMissing = true;
      } else if (!Volumes.nodeAffinityMatches(b.pv(), ref.name(), ref.labels())) {
        nodeConflict = true;
      }
    }
    List<NodeVolumes.Binding> bindings = new ArrayList<>();
    List<PersistentVolumeClaim> provisions = new ArrayList<>();
    boolean bindConflict = !match(s, ref, bindings, provisions);
    List<String> reasons = new ArrayList<>();
    if (nodeConflict) {
      reasons.add(REASON_NODE_CONFLICT);
    }
    if (bindConflict) {
      reasons.add(REASON_BIND_CONFLICT);
    }
    if (pvMissing) {
      reasons.add(REASON_PV_NOT_EXIST);
    }
    if (!reasons.isEmpty()) {
      return Status.unresolvable(reasons.toArray(String[]::new));
    }
    s.byNode.put(node.name(), new NodeVolumes(ref, bindings, provisions));
    return Status.success();
  }

  /**
   * Finds a PV or a way to provision for every delayed claim on the node; false when some claim has
   * neither.
   */
  private boolean match(
      ClaimState s,
      VolumeMatcher.NodeRef node,
      List<NodeVolumes.Binding> bindings,
      List<PersistentVolumeClaim> provisions) {
    Set<String> chosen = new HashSet<>();
    List<PersistentVolumeClaim> toProvision = new ArrayList<>();
    for (PersistentVolumeClaim claim : s.delayed) {
      String selected = VolumeBinder.annotation(claim, Volumes.ANN_SELECTED_NODE);
      if (selected != null) {
        if (!selected.equals(node.name())) {
          return false;
        }
        toProvision.add(claim);
        continue;
      }
      List<PersistentVolume> candidates =
          s.pvsByClass.getOrDefault(Volumes.className(claim), List.of());
      PersistentVolume pv = VolumeMatcher.find(claim, candidates, node, chosen, assumed);
      if (pv != null) {
        chosen.add(pv.getMetadata().getName());
        bindings.add(new NodeVolumes.Binding(pv, claim));
      } else {
        toProvision.add(claim);
      }
    }
    for (PersistentVolumeClaim claim : toProvision) {
      StorageClass sc = s.classes.get(Volumes.className(claim));
      if (sc == null || !canProvision(sc, node.labels())) {
        return false;
      }
      provisions.add(claim);
    }
    return true;
  }

  /** The class has a provisioner and its allowed topologies admit the node. */
  private static boolean canProvision(StorageClass sc, Map<String, String> labels) {
    String p = sc.getProvisioner();
    if (p == null || p.isEmpty() || Volumes.NO_PROVISIONER.equals(p)) {
      return false;
    }
    List<TopologySelectorTerm> terms = sc.getAllowedTopologies();
    if (terms == null || terms.isEmpty()) {
      return true;
    }
    for (TopologySelectorTerm t : terms) {
      if (termMatches(t, labels)) {
        return true;
      }
    }
    return false;
  }

  private static boolean termMatches(TopologySelectorTerm t, Map<String, String> labels) {
    if (t.getMatchLabelExpressions() == null) {
      return true;
    }
    for (TopologySelectorLabelRequirement r : t.getMatchLabelExpressions()) {
      String v = labels.get(r.getKey());
      if (v == null || r.getValues() == null || !r.getValues().contains(v)) {
        return false;
      }
    }
    return true;
  }

  // ---- Reserve, PreBind

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    ClaimState s = state.get(KEY);
    if (s == null) {
      return Status.success();
    }
    NodeVolumes volumes = s.byNode.get(nodeName);
    s.reserved = volumes;
    if (volumes == null) {
      return Status.success();
    }
    String uid = pod.getMetadata().getUid();
    for (NodeVolumes.Binding b : volumes.bindings()) {
      assumed.assume(b.pv().getMetadata().getName(), VolumeMatcher.key(b.claim()), uid);
    }
    return Status.success();
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    assumed.forgetPod(pod.getMetadata().getUid());
  }

  @Override
  public Status preBind(CycleState state, Pod pod, String nodeName) {
    ClaimState s = state.get(KEY);
    NodeVolumes volumes = s == null ? null : s.reserved;
    if (volumes == null || volumes.isEmpty()) {
      return Status.success();
    }
    Status st = binder.bind(volumes);
    if (st.isSuccess()) {
      // The listers show the claimRefs now; the promises are no longer needed.
      assumed.forgetPod(pod.getMetadata().getUid());
    }
    return st;
  }

  /** How many PVs are promised to pods in flight (for tests). */
  int assumedCount() {
    return assumed.size();
  }

  // ---- events

  /** None for pods with claims: the verdict reads PVs and promises that change apart from nodes. */
  @Override
  public @Nullable Object equivalenceClass(CycleState state, Pod pod) {
    return state.get(KEY) == null ? NAME : null;
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, ActionType.UPDATE_OTHER),
            VolumeBindingPlugin::claimOfPod),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.PERSISTENT_VOLUME, ActionType.ADD, ActionType.UPDATE_OTHER)),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.STORAGE_CLASS, ActionType.ADD, ActionType.UPDATE_OTHER)),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.CSI_NODE, ActionType.ADD, ActionType.UPDATE_OTHER)),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.NODE,
                ActionType.ADD,
                ActionType.UPDATE_NODE_LABEL,
                ActionType.UPDATE_NODE_TAINT)));
  }

  /** Queues the pod when the changed claim is one of its own. */
  static QueueingHint claimOfPod(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (!(newObj instanceof PersistentVolumeClaim claim)) {
      return QueueingHint.SKIP;
    }
    if (!claim.getMetadata().getNamespace().equals(pod.getMetadata().getNamespace())) {
      return QueueingHint.SKIP;
    }
    for (Volume v : Volumes.of(pod)) {
      if (claim.getMetadata().getName().equals(Volumes.claimName(pod, v))) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.SKIP;
  }
}
