package io.hami.framework.plugins.gangscheduling;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.api.PermitPlugin;
import io.hami.framework.api.PermitResult;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PodGroup;
import io.hami.framework.api.PostFilterPlugin;
import io.hami.framework.api.PostFilterResult;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.gangscheduling.Gangs.Release;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All-or-nothing scheduling of pod groups (kube-scheduler v1.36's GangScheduling): a member of a
 * gang waits in front of the queue until its PodGroup and at least {@code minCount} members exist,
 * then each member is reserved (devices included) and waits at Permit until {@code minCount}
 * members have a place, and then all of them are allowed together.
 *
 * <p>Beyond kube-scheduler, a group never holds what it cannot use: when a member cannot be placed
 * (PostFilter, or a failure between Reserve and Permit) or a member's Permit wait ends without the
 * quorum (timeout, rejection), every member waiting at Permit is rejected at once, which releases
 * its reservation. The member that did not fit is marked as blocking: the others stay parked
 * (rejected by this plugin, which no event of their own requeues), and when a cluster event that
 * can help lets the blocking member through to Permit, it activates them, so the group retries as a
 * unit. The release itself produces no cluster event, so a group that cannot fit does not hot-loop.
 *
 * <p>A group whose Permit wait ended without the quorum (timeout, or released) is held back as a
 * unit, as kube-scheduler parks its members as unschedulable until a member is added: until {@code
 * minCount} of its members can be scheduled (not gated), PreFilter refuses every member before it
 * reserves anything, so the GPUs released at the timeout go to other pods. A member that joins or
 * loses its last gate and so completes the group activates the others.
 *
 * <p>A group is named either by {@code spec.schedulingGroup.podGroupName} (a {@code
 * scheduling.k8s.io/v1alpha2} PodGroup holds the policy) or, where the cluster lacks that API, by
 * the annotations {@code pod-group.scheduling.hami.io/name} and {@code
 * pod-group.scheduling.hami.io/min-available}. Pods without a group are not affected.
 *
 * <p>Concurrency: PreEnqueue runs under the queue's lock on any thread, PreFilter, PostFilter,
 * Reserve and Permit on the scheduling thread, Unreserve on binding threads, the listener on the
 * cache thread. Group state is guarded per group ({@link Gangs}); waiting pods are allowed,
 * rejected and activated outside that guard, since doing so takes the queue's lock.
 */
public final class GangSchedulingPlugin
    implements PreEnqueuePlugin,
        PreFilterPlugin,
        PostFilterPlugin,
        ReservePlugin,
        PermitPlugin,
        EnqueueExtensions {
  public static final String NAME = "GangScheduling";

  private static final Logger log = LoggerFactory.getLogger(GangSchedulingPlugin.class);

  static final String WAITING_FOR_GROUP =
      "waiting for pods's pod group %s to appear in scheduling queue";
  static final String WAITING_FOR_MIN_COUNT =
      "waiting for minCount pods from a gang to appear in scheduling queue";
  static final String WAITING_AT_PERMIT = "waiting for minCount pods from a gang to be scheduled";
  static final String HELD_AFTER_PERMIT =
      "gang %s waits for minCount pods that can be scheduled: its last Permit wait ended"
          + " without them";

  /** Where a gang member's cycle got to, for Unreserve to tell whose failure it was. */
  enum Stage {
    RESERVED,
    WAITING,
    ALLOWED
  }

  /** A member of a gang in this cycle: written by PreFilter, advanced by Reserve and Permit. */
  static final class GangState implements StateData {
    final String key;
    final int minCount;
    volatile Stage stage = Stage.RESERVED;

    GangState(String key, int minCount) {
      this.key = key;
      this.minCount = minCount;
    }
  }

  static final StateKey<GangState> KEY = StateKey.of("PreFilter" + NAME, GangState.class);

  private final FrameworkHandle handle;
  private final GangSchedulingArgs args;
  private final ObjectLister<PodGroup> podGroups;
  private final Gangs gangs = new Gangs();

  GangSchedulingPlugin(GangSchedulingArgs args, FrameworkHandle handle) {
    this.args = requireNonNull(args, "args");
    this.handle = requireNonNull(handle, "handle");
    this.podGroups = handle.lister(ObjectKind.POD_GROUP);
  }

  /** Factory for the registry. */
  public static GangSchedulingPlugin create(GangSchedulingArgs args, FrameworkHandle handle) {
    GangSchedulingPlugin p = new GangSchedulingPlugin(args, handle);
    handle.addClusterStateListener(p.listener());
    return p;
  }

  public static PluginRegistration<GangSchedulingArgs> registration() {
    return PluginRegistration.of(
        NAME,
        GangSchedulingArgs.class,
        GangSchedulingArgs.defaults(),
        GangSchedulingPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  // Policy

  /** The member's group policy, or null when the member's PodGroup does not exist. */
  private @Nullable GroupPolicy policy(Membership.Member m, Pod pod) {
    if (!m.viaApi()) {
      return GroupPolicy.of(m);
    }
    PodGroup g = podGroups.get(m.namespace(), m.name());
    return g == null ? null : GroupPolicy.of(g, pod);
  }

  // PreEnqueue

  /**
   * Holds a gang member back until its PodGroup exists and at least {@code minCount} members do.
   * Malformed groups pass: PreFilter refuses them with a message on the pod.
   */
  @Override
  public Status preEnqueue(Pod pod) {
    if (!(Membership.of(pod) instanceof Membership.Member m)) {
      return Status.success();
    }
    GroupPolicy p = policy(m, pod);
    if (p == null) {
      return Status.unresolvable(String.format(WAITING_FOR_GROUP, "\"" + m.name() + "\""));
    }
    if (p instanceof GroupPolicy.Gang g
        && gangs.memberCount(m.key(), pod.getMetadata().getUid()) < g.minCount()) {
      return Status.unresolvable(WAITING_FOR_MIN_COUNT);
    }
    return Status.success();
  }

  // PreFilter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    Membership ms = Membership.of(pod);
    if (ms instanceof Membership.Invalid bad) {
      return PreFilterResult.of(Status.unresolvable(bad.message()));
    }
    if (!(ms instanceof Membership.Member m)) {
      return PreFilterResult.allNodes();
    }
    GroupPolicy p = policy(m, pod);
    if (p == null) {
      return PreFilterResult.of(
          Status.unschedulable(String.format(WAITING_FOR_GROUP, "\"" + m.name() + "\"")));
    }
    if (p instanceof GroupPolicy.Invalid bad) {
      return PreFilterResult.of(Status.unresolvable(bad.message()));
    }
    if (!(p instanceof GroupPolicy.Gang g)) {
      return PreFilterResult.allNodes();
    }
    if (gangs.held(m.key(), pod.getMetadata().getUid(), g.minCount())) {
      return PreFilterResult.of(Status.unresolvable(String.format(HELD_AFTER_PERMIT, m.key())));
    }
    String blocker = gangs.blocker(m.key(), pod.getMetadata().getUid());
    if (blocker != null) {
      return PreFilterResult.of(
          Status.unschedulable(
              "waiting for pod " + blocker + " of gang " + m.key() + " to fit before the others"));
    }
    state.write(KEY, new GangState(m.key(), g.minCount()));
    return PreFilterResult.allNodes();
  }

  // PostFilter

  /** A member that fits nowhere blocks its group, and releases the members waiting at Permit. */
  @Override
  public PostFilterResult postFilter(
      CycleState state, Pod pod, Map<String, Status> filteredNodeStatuses) {
    GangState gs = state.get(KEY);
    if (gs != null) {
      release(gangs.block(gs.key, pod), "pod " + podKey(pod) + " of the gang does not fit");
    }
    return PostFilterResult.of(Status.unschedulable());
  }

  // Reserve

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    GangState gs = state.get(KEY);
    if (gs != null) {
      gs.stage = Stage.RESERVED;
      gangs.reserve(gs.key, pod);
    }
    return Status.success();
  }

  /**
   * The member's reservation is undone. Whatever the cause, the members still waiting at Permit are
   * released; when the member failed before reaching this plugin's Permit (another Reserve or
   * Permit plugin refused it), it also blocks its group, as a member that fits nowhere does.
   */
  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    GangState gs = state.get(KEY);
    if (gs == null) {
      return;
    }
    Stage stage = gs.stage;
    Release r = gangs.unreserve(gs.key, pod, stage == Stage.RESERVED, stage == Stage.WAITING);
    if (stage != Stage.ALLOWED) {
      release(r, "pod " + podKey(pod) + " of the gang lost its place");
    }
  }

  // Permit

  /**
   * Allows every waiting member once {@code minCount} members have a place (reserved here or
   * bound); otherwise activates the members still pending, so that they are tried next, and waits.
   */
  @Override
  public PermitResult permit(CycleState state, Pod pod, String nodeName) {
    GangState gs = state.get(KEY);
    if (gs == null) {
      return PermitResult.allow();
    }
    Gangs.Quorum q = gangs.quorum(gs.key, pod, gs.minCount);
    if (q.met()) {
      gs.stage = Stage.ALLOWED;
      for (String uid : q.waiting()) {
        handle.waitingPod(uid).ifPresent(w -> w.allow(NAME));
      }
      log.debug(
          "gang quorum met gang={} pod={} allowed={}", gs.key, podKey(pod), q.waiting().size());
      return PermitResult.allow();
    }
    gs.stage = Stage.WAITING;
    if (!q.pending().isEmpty()) {
      handle.activate(q.pending());
    }
    return PermitResult.waitFor(args.permitWaitingTime());
  }

  /** Rejects the released members still waiting at Permit; each rejection unreserves it. */
  private void release(Release r, String why) {
    if (r.waiting().isEmpty()) {
      return;
    }
    String reason = "gang " + r.key() + " released: " + why;
    log.debug("gang released gang={} waiting={} why={}", r.key(), r.waiting().size(), why);
    for (String uid : r.waiting()) {
      handle.waitingPod(uid).ifPresent(w -> w.reject(NAME, reason));
    }
  }

  // Events

  ClusterStateListener listener() {
    return new ClusterStateListener() {
      @Override
      public void onPodAdd(Pod pod) {
        changed(null, pod);
      }

      @Override
      public void onPodUpdate(Pod oldPod, Pod newPod) {
        changed(oldPod, newPod);
      }

      @Override
      public void onPodDelete(Pod pod) {
        if (Membership.of(pod) instanceof Membership.Member m) {
          gangs.remove(m.key(), pod.getMetadata().getUid());
        }
      }
    };
  }

  /**
   * Tracks members. When an added member brings its gang to its quorum, the members PreEnqueue held
   * back are activated: the runtime reports no event for a pending pod's add.
   */
  private void changed(@Nullable Pod oldPod, Pod pod) {
    Membership now = Membership.of(pod);
    if (oldPod != null
        && Membership.of(oldPod) instanceof Membership.Member before
        && !(now instanceof Membership.Member m && m.key().equals(before.key()))) {
      gangs.remove(before.key(), oldPod.getMetadata().getUid());
    }
    if (!(now instanceof Membership.Member m)) {
      return;
    }
    Gangs.Tracked t = gangs.track(m.key(), pod);
    if (t.pending().isEmpty() || !(policy(m, pod) instanceof GroupPolicy.Gang g)) {
      return;
    }
    if ((t.added() && t.members() == g.minCount())
        || (ungated(oldPod, pod) && gangs.heldAndComplete(m.key(), g.minCount()))) {
      handle.activate(t.pending());
    }
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.UNSCHEDULED_POD, ActionType.ADD),
            GangSchedulingPlugin::sameGroupPodAdded),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.POD_GROUP, ActionType.ADD, ActionType.UPDATE_OTHER),
            GangSchedulingPlugin::ownPodGroupChanged));
  }

  /**
   * A new member may complete the quorum. A gated one cannot until its gates go; then it is
   * scheduled itself and, waiting at Permit, activates the members without a place.
   */
  private static QueueingHint sameGroupPodAdded(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    return newObj instanceof Pod added
            && !gated(added)
            && Membership.of(pod) instanceof Membership.Member m
            && Membership.of(added) instanceof Membership.Member a
            && m.key().equals(a.key())
        ? QueueingHint.QUEUE
        : QueueingHint.SKIP;
  }

  private static boolean gated(Pod p) {
    return Gangs.gated(p);
  }

  /** A new member without gates, or a member whose last gate went. */
  private static boolean ungated(@Nullable Pod oldPod, Pod pod) {
    return !gated(pod) && (oldPod == null || gated(oldPod));
  }

  /** The pod's PodGroup appeared, or its spec changed (a new generation; not its status). */
  private static QueueingHint ownPodGroupChanged(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (oldObj instanceof PodGroup before
        && newObj instanceof PodGroup after
        && before.getMetadata().getGeneration() != null
        && Objects.equals(
            before.getMetadata().getGeneration(), after.getMetadata().getGeneration())) {
      return QueueingHint.SKIP;
    }
    return newObj instanceof PodGroup g
            && Membership.of(pod) instanceof Membership.Member m
            && m.viaApi()
            && Objects.equals(g.getMetadata().getNamespace(), m.namespace())
            && Objects.equals(g.getMetadata().getName(), m.name())
        ? QueueingHint.QUEUE
        : QueueingHint.SKIP;
  }

  static String podKey(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
