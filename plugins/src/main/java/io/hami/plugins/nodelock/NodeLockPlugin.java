package io.hami.plugins.nodelock;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeLocal;
import io.hami.framework.api.PermitPlugin;
import io.hami.framework.api.PermitResult;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.api.WaitingPod;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import io.hami.model.Decoded;
import io.hami.model.lock.NodeLock;
import io.hami.plugins.metrics.GpuMetrics;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.VgpuPlugin;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HAMi's node lock ({@code hami.io/mutex.lock}, protocol §4): the node agent finds the pod it must
 * serve in Allocate through the lock, so at most one pod per node may be between binding and
 * Allocate.
 *
 * <p>Within this scheduler, pods bound for the same node queue at Permit: the first is allowed, the
 * others wait and are allowed one at a time as soon as the node's lock is seen released (or its
 * holder is gone), so no pod waits for a backoff while the node is free, and pods for other nodes
 * bind meanwhile. Score prefers nodes with fewer pods between placement and Allocate, so that binds
 * for different nodes overlap instead of queueing on one lock. A pod that another Permit plugin
 * still holds (a gang member waiting for its group) does not keep the node from others: it yields
 * its place, and takes the node back in PreBind once allowed, waiting there for the pod holding it
 * then, so that members of one gang on one node never wait for each other. PreBind takes the lock
 * with a resourceVersion-guarded patch, replacing a stale lock (expired, holder gone, terminal,
 * finished, or bound elsewhere), never one whose holder is bound and waiting for Allocate. A lock
 * held by another scheduler sends the pod back to the queue; it is re-activated by the lock's
 * removal event.
 *
 * <p>In lock mode {@code scheduler} ({@link NodeLockArgs#lockFree}), on nodes whose agent finds the
 * pod without the lock ({@code hami.io/node-lock-free}), PreBind writes no lock: the order kept
 * here is the lock, released when the agent reports the pod served or it is gone, or after the lock
 * timeout; pods found in {@code allocating} phase (bound before a restart) hold their nodes again.
 *
 * <p>Pods that ask for no device in their app containers are not locked. Without an API client (an
 * in-memory cluster) there is no node agent to release locks, and the plugin lets every pod
 * through.
 *
 * <p>Concurrency: Permit runs on the scheduling thread, PreBind and Unreserve on binding threads,
 * and the cluster listener on the cache thread; the per-node queues are guarded by {@code this}.
 * API calls are made outside the monitor.
 */
public final class NodeLockPlugin
    implements ScorePlugin, ReservePlugin, PermitPlugin, PreBindPlugin, EnqueueExtensions {

  public static final String NAME = "nodelock";

  private static final Logger log = LoggerFactory.getLogger(NodeLockPlugin.class);

  /** Marks a cycle whose pod needs the lock on {@link #node}. */
  record Needed(String node) implements StateData {}

  static final StateKey<Needed> NEEDED = StateKey.of("Reserve" + NAME, Needed.class);

  /** A pod of this scheduler that holds or is about to take a node's lock. */
  private record Claim(String uid, String namespace, String name) {
    boolean is(@Nullable NodeLock lock) {
      return lock != null && lock.isHeldBy(namespace, name);
    }
  }

  /** A yielded pod waiting in PreBind until the node is handed to it. */
  private record Turn(Claim claim, CompletableFuture<Void> handed) {}

  private static final class Slot {
    @Nullable Claim owner;
    boolean acquired;

    /**
     * Lock mode {@code scheduler}: the owner holds the node in this scheduler's memory only (no
     * lock on the Node), since {@link #acquiredAt}.
     */
    boolean inMemory;

    @Nullable Instant acquiredAt;
    final ArrayDeque<Claim> waiters = new ArrayDeque<>();
    final Map<String, Pod> blocked = new LinkedHashMap<>();

    /**
     * Pods this plugin allowed at Permit that another Permit plugin still holds (a gang member
     * waiting for its group): they do not keep the node, and take it back in PreBind.
     */
    final Map<String, Claim> yielded = new LinkedHashMap<>();

    /** Yielded pods in PreBind waiting for the node, first come first served. */
    final Map<String, Turn> turns = new LinkedHashMap<>();

    @Nullable String observed;

    /**
     * When the owner was reported served (bind-phase success or failed) while its lock was still on
     * the node: the node agent removes the lock right after, and that removal hands the node on.
     * Null otherwise.
     */
    @Nullable Instant ownerDoneAt;
  }

  /**
   * How long a served owner's lock may linger before a new pod may take the node anyway (a node
   * agent that reported success but never released; PreBind then takes the stale lock over).
   */
  static final Duration SERVED_LOCK_GRACE = Duration.ofSeconds(10);

  private final FrameworkHandle handle;
  private final NodeLockArgs args;
  private final @Nullable NodeLockClient client;

  @GuardedBy("this")
  private final Map<String, Slot> slots = new HashMap<>();

  /** Each node as the informer last delivered it, for a lock patch without a read first. */
  private final Map<String, Node> seen = new ConcurrentHashMap<>();

  /** When each pod queued at Permit began to wait, by UID. */
  @GuardedBy("this")
  private final Map<String, Instant> waitingSince = new HashMap<>();

  private final Map<StaleCause, CounterDataPoint> broken = new EnumMap<>(StaleCause.class);
  private final CounterDataPoint heldOnNode;
  private final CounterDataPoint heldAtPermit;
  private final CounterDataPoint permitWaits;
  private final DistributionDataPoint waitAllowed;
  private final DistributionDataPoint waitRejected;

  NodeLockPlugin(
      NodeLockArgs args, FrameworkHandle handle, @Nullable NodeLockClient client, GpuMetrics m) {
    this.args = requireNonNull(args, "args");
    this.handle = requireNonNull(handle, "handle");
    this.client = client;
    String profile = handle.schedulerName();
    for (StaleCause c : StaleCause.values()) {
      broken.put(c, m.lockBroken(c.label(), profile));
    }
    heldOnNode = m.lockHeld("node", profile);
    heldAtPermit = m.lockHeld("permit", profile);
    permitWaits = m.permitWaits(profile);
    waitAllowed = m.permitWait("allowed", profile);
    waitRejected = m.permitWait("rejected", profile);
  }

  /** Factory for the registry. */
  public static NodeLockPlugin create(
      NodeLockArgs args, FrameworkHandle handle, SharedGpuState shared) {
    NodeLockClient c =
        handle
            .client()
            .map(
                k ->
                    new NodeLockClient(
                        k,
                        new LockArbiter(args.lockTimeout()),
                        handle.clock(),
                        ZoneId.systemDefault(),
                        args.patchAttempts()))
            .orElse(null);
    if (args.lockFree()) {
      handle.client().ifPresent(LockFreeNodes::refuseLockedNodes);
    }
    NodeLockPlugin p = new NodeLockPlugin(args, handle, c, shared.metrics(handle));
    handle.addClusterStateListener(p.listener());
    return p;
  }

  public static PluginRegistration<NodeLockArgs> registration(SharedGpuState shared) {
    return PluginRegistration.of(
        NAME,
        NodeLockArgs.class,
        NodeLockArgs.DEFAULTS,
        (args, handle) -> create(args, handle, shared));
  }

  @Override
  public String name() {
    return NAME;
  }

  /** How many stale locks were taken over, by cause (exported as a metric). */
  public long brokenLocks(StaleCause cause) {
    return requireNonNull(broken.get(cause)).getLongValue();
  }

  /** How many lock attempts met a lock held on the node by someone else (exported as a metric). */
  public long contendedLocks() {
    return heldOnNode.getLongValue();
  }

  private static boolean needsLock(CycleState state) {
    PodDeviceRequests r = state.get(VgpuPlugin.REQUESTS);
    return r != null && r.requests().hasAppDevices();
  }

  private static Claim claim(Pod pod) {
    return new Claim(
        pod.getMetadata().getUid(), pod.getMetadata().getNamespace(), pod.getMetadata().getName());
  }

  @GuardedBy("this")
  private Slot slot(String node) {
    return slots.computeIfAbsent(node, n -> new Slot());
  }

  // Score

  /**
   * Prefers nodes with fewer pods in the lock's pipeline: placed but not yet bound, or bound and
   * not yet served by the node agent. Each of them holds or waits for the node's lock, so a pod
   * sent there waits for all of them in turn, while a node without any binds at once. Reads only
   * the snapshot.
   */
  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    if (!needsLock(state)) {
      return MAX_NODE_SCORE;
    }
    return MAX_NODE_SCORE / (1 + inPipeline(node));
  }

  private static final NodeLocal<Integer> IN_PIPELINE =
      NodeLocal.create("nodelock: pods in the lock's pipeline");

  /** Pods in the node's lock pipeline, counted once per NodeInfo (it reads nothing else). */
  static int inPipeline(NodeInfo node) {
    Integer kept = node.local(IN_PIPELINE);
    if (kept != null) {
      return kept;
    }
    int n = countInPipeline(node);
    node.setLocal(IN_PIPELINE, n);
    return n;
  }

  private static int countInPipeline(NodeInfo node) {
    // A lock on the node counts even when its holder already reads served: the node agent
    // removes the lock just after, and until then a pod sent here waits at Permit.
    Map<String, String> na = node.node().getMetadata().getAnnotations();
    int locked = na != null && na.containsKey(Annotations.MUTEX_LOCK) ? 1 : 0;
    int n = 0;
    for (PodInfo p : node.pods()) {
      if (p.assumed()) {
        n++;
        continue;
      }
      Map<String, String> a = p.pod().getMetadata().getAnnotations();
      if (a != null && "allocating".equals(a.get(Annotations.BIND_PHASE)) && !isGone(p.pod())) {
        n++;
      }
    }
    return Math.max(n, locked);
  }

  // Reserve

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    if (client != null && needsLock(state)) {
      state.write(NEEDED, new Needed(nodeName));
    }
    return Status.success();
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    Needed n = state.get(NEEDED);
    if (n == null) {
      return;
    }
    state.delete(NEEDED);
    Claim me = claim(pod);
    boolean release;
    synchronized (this) {
      Slot s = slot(n.node());
      s.waiters.removeIf(c -> c.uid().equals(me.uid()));
      s.yielded.remove(me.uid());
      s.turns.remove(me.uid());
      Instant since = waitingSince.remove(me.uid());
      if (since != null) {
        waitRejected.observe(seconds(since));
      }
      if (s.owner == null || !s.owner.uid().equals(me.uid())) {
        return;
      }
      release = s.acquired && !s.inMemory;
    }
    if (release && client != null) {
      try {
        client.release(n.node(), me.namespace(), me.name());
      } catch (KubernetesClientException e) {
        log.warn(
            "node lock release failed node={} pod={}/{} error={}",
            n.node(),
            me.namespace(),
            me.name(),
            e.getMessage());
      }
    }
    synchronized (this) {
      Slot s = slot(n.node());
      if (s.owner != null && s.owner.uid().equals(me.uid())) {
        s.owner = null;
        s.acquired = false;
        promote(s);
      }
    }
  }

  // Permit

  @Override
  public PermitResult permit(CycleState state, Pod pod, String nodeName) {
    if (state.get(NEEDED) == null) {
      return PermitResult.allow();
    }
    Claim me = claim(pod);
    synchronized (this) {
      Slot s = slot(nodeName);
      Instant now = handle.clock().instant();
      boolean lingering =
          s.ownerDoneAt != null && !now.isBefore(s.ownerDoneAt.plus(SERVED_LOCK_GRACE));
      if (s.owner != null
          && s.acquired
          && s.inMemory
          && s.acquiredAt != null
          && !now.isBefore(s.acquiredAt.plus(args.lockTimeout()))) {
        // Its agent never reported it served: as a node lock would, the claim expires.
        requireNonNull(broken.get(StaleCause.EXPIRED)).inc();
        log.info("in-scheduler node claim expired node={} holder={}", nodeName, s.owner.name());
        lingering = true;
      }
      if (s.owner != null
          && !s.acquired
          && !s.owner.uid().equals(me.uid())
          && heldElsewhere(s.owner.uid())) {
        // The owner waits at Permit for another plugin (its gang), maybe for minutes: it must
        // not keep this node from other pods. It takes the node back in PreBind.
        s.yielded.put(s.owner.uid(), s.owner);
        s.owner = null;
      }
      if (s.owner == null || s.owner.uid().equals(me.uid()) || lingering) {
        s.owner = me;
        s.acquired = false;
        s.inMemory = false;
        s.ownerDoneAt = null;
        return PermitResult.allow();
      }
      s.waiters.addLast(me);
      waitingSince.put(me.uid(), handle.clock().instant());
    }
    heldAtPermit.inc();
    permitWaits.inc();
    return PermitResult.waitFor(args.waitTimeout());
  }

  /** Hands the node to the next waiting pod that is still waiting. */
  @GuardedBy("this")
  private void promote(Slot s) {
    if (s.owner == null && !s.turns.isEmpty()) {
      Iterator<Turn> it = s.turns.values().iterator();
      Turn t = it.next();
      it.remove();
      s.owner = t.claim();
      s.acquired = false;
      s.ownerDoneAt = null;
      t.handed().complete(null);
      return;
    }
    while (s.owner == null && !s.waiters.isEmpty()) {
      Claim next = s.waiters.pollFirst();
      WaitingPod w = handle.waitingPod(next.uid()).orElse(null);
      Instant since = waitingSince.remove(next.uid());
      if (w != null && since != null) {
        waitAllowed.observe(seconds(since));
      }
      if (w == null) {
        continue;
      }
      boolean elsewhere = heldElsewhere(w);
      w.allow(NAME);
      if (elsewhere) {
        s.yielded.put(next.uid(), next);
      } else {
        s.owner = next;
        s.acquired = false;
        s.ownerDoneAt = null;
      }
    }
  }

  /** Whether the pod waits at Permit for plugins other than this one (a gang member's group). */
  private boolean heldElsewhere(String uid) {
    WaitingPod w = handle.waitingPod(uid).orElse(null);
    return w != null && heldElsewhere(w);
  }

  private static boolean heldElsewhere(WaitingPod w) {
    Set<String> pending = w.pendingPlugins();
    return !pending.isEmpty() && !(pending.size() == 1 && pending.contains(NAME));
  }

  /**
   * A pod that yielded the node while held at Permit takes it back before it locks the node: now,
   * if no one holds it, or once the holder is done (up to the wait timeout). Returns a rejection
   * when the node did not come back in time, null to go on.
   */
  private @Nullable Status takeBack(Claim me, String nodeName) {
    CompletableFuture<Void> handed;
    synchronized (this) {
      Slot s = slot(nodeName);
      if (s.yielded.remove(me.uid()) == null) {
        return null;
      }
      if (s.owner == null || s.owner.uid().equals(me.uid())) {
        s.owner = me;
        s.acquired = false;
        s.ownerDoneAt = null;
        return null;
      }
      handed = new CompletableFuture<>();
      s.turns.put(me.uid(), new Turn(me, handed));
    }
    try {
      handed.get(args.waitTimeout().toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (TimeoutException | ExecutionException e) {
      synchronized (this) {
        slot(nodeName).turns.remove(me.uid());
      }
      return Status.unschedulable("node " + nodeName + " stayed locked by another pod");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      synchronized (this) {
        slot(nodeName).turns.remove(me.uid());
      }
      return Status.error(e);
    }
  }

  // PreBind

  @Override
  public Status preBind(CycleState state, Pod pod, String nodeName) {
    if (state.get(NEEDED) == null || client == null) {
      return Status.skip();
    }
    Claim me = claim(pod);
    Status back = takeBack(me, nodeName);
    if (back != null) {
      return back;
    }
    if (args.lockFree() && LockFreeNodes.lockFree(seen.get(nodeName))) {
      // The node's agent finds this pod without a lock; the order kept here is the lock.
      synchronized (this) {
        Slot s = slot(nodeName);
        s.owner = me;
        s.acquired = true;
        s.inMemory = true;
        s.acquiredAt = handle.clock().instant();
      }
      return Status.success();
    }
    NodeLockClient.Result r;
    try {
      r = client.acquire(nodeName, me.namespace(), me.name(), seen.get(nodeName));
    } catch (KubernetesClientException e) {
      return Status.error(e);
    }
    if (r instanceof NodeLockClient.Result.Acquired a) {
      synchronized (this) {
        Slot s = slot(nodeName);
        s.owner = me;
        s.acquired = true;
        s.inMemory = false;
      }
      if (a.broken() != null) {
        LockDecision.Stale st = a.broken();
        requireNonNull(broken.get(st.cause())).inc();
        log.info(
            "stale node lock taken over node={} holder={} cause={}",
            nodeName,
            st.holder(),
            st.cause().label());
        handle
            .eventRecorder()
            .record(
                pod,
                EventRecorder.Type.NORMAL,
                "NodeLockTakenOver",
                "Binding",
                "took over the lock of node "
                    + nodeName
                    + " from "
                    + st.holder()
                    + " ("
                    + st.cause().label()
                    + ")");
      }
      return Status.success();
    }
    if (r instanceof NodeLockClient.Result.Held h) {
      heldOnNode.inc();
      synchronized (this) {
        slot(nodeName).blocked.put(me.uid(), pod);
      }
      return Status.unschedulable("node " + nodeName + " is locked by " + h.holder());
    }
    return Status.unschedulable("node " + nodeName + " no longer exists");
  }

  // Events

  ClusterStateListener listener() {
    return new ClusterStateListener() {
      @Override
      public void onNodeAdd(Node node) {
        observe(node);
      }

      @Override
      public void onNodeUpdate(Node oldNode, Node newNode) {
        observe(newNode);
      }

      @Override
      public void onNodeDelete(Node node) {
        seen.remove(node.getMetadata().getName());
        List<Pod> wake;
        synchronized (NodeLockPlugin.this) {
          Slot s = slots.remove(node.getMetadata().getName());
          wake = s == null ? List.of() : new ArrayList<>(s.blocked.values());
          if (s != null) {
            // Pods yielded in PreBind wait for a node that is gone: they fail now.
            for (Turn t : s.turns.values()) {
              t.handed().completeExceptionally(new IllegalStateException("the node was deleted"));
            }
            for (Claim c : s.waiters) {
              waitingSince.remove(c.uid());
            }
          }
        }
        activate(wake);
      }

      @Override
      public void onPodAdd(Pod pod) {
        if (args.lockFree()) {
          adoptAllocating(pod);
        }
      }

      @Override
      public void onPodUpdate(Pod oldPod, Pod newPod) {
        if (doneWithLock(newPod)) {
          holderDone(newPod, isGone(newPod));
        } else if (args.lockFree()) {
          adoptAllocating(newPod);
        }
      }

      @Override
      public void onPodDelete(Pod pod) {
        holderDone(pod, true);
      }
    };
  }

  /**
   * Lock mode {@code scheduler}: a pod bound and waiting for Allocate on a node nobody holds here
   * (one bound before this scheduler started, or by the leader before it) holds the node, as its
   * lock would, until it is served or gone or its bind time is older than the lock timeout.
   */
  private void adoptAllocating(Pod pod) {
    Instant bound = LockFreeNodes.waitingForAllocateSince(pod);
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (bound == null
        || node == null
        || !handle.clock().instant().isBefore(bound.plus(args.lockTimeout()))) {
      return;
    }
    synchronized (this) {
      Slot s = slot(node);
      if (s.owner != null) {
        return;
      }
      s.owner = claim(pod);
      s.acquired = true;
      s.inMemory = true;
      s.acquiredAt = bound;
    }
  }

  /** Whether a pod can no longer need a node lock. */
  private static boolean doneWithLock(Pod pod) {
    if (PodPhases.isGone(pod)) {
      return true;
    }
    Map<String, String> a = pod.getMetadata().getAnnotations();
    String bp = a == null ? null : a.get(Annotations.BIND_PHASE);
    return "success".equals(bp) || "failed".equals(bp);
  }

  private void observe(Node node) {
    String name = node.getMetadata().getName();
    seen.put(name, node);
    Map<String, String> a = node.getMetadata().getAnnotations();
    String value = a == null ? null : a.get(Annotations.MUTEX_LOCK);
    List<Pod> wake = List.of();
    synchronized (this) {
      Slot s = slots.get(name);
      if (s == null) {
        if (value == null) {
          return;
        }
        s = slot(name);
      }
      if (Objects.equals(s.observed, value)) {
        return;
      }
      s.observed = value;
      NodeLock lock = value == null ? null : NodeLock.decode(value).toOptional().orElse(null);
      if (s.owner != null && s.acquired && !s.inMemory && !s.owner.is(lock)) {
        // The node agent released our holder's lock (or someone replaced it): next pod.
        s.owner = null;
        s.acquired = false;
        promote(s);
      }
      if (value == null && !s.blocked.isEmpty()) {
        wake = new ArrayList<>(s.blocked.values());
        s.blocked.clear();
      }
      if (value == null
          && s.owner == null
          && s.waiters.isEmpty()
          && s.blocked.isEmpty()
          && s.yielded.isEmpty()
          && s.turns.isEmpty()) {
        slots.remove(name);
      }
    }
    activate(wake);
  }

  /** Whether the pod is deleted or terminal, so no node agent will release its lock. */
  private static boolean isGone(Pod pod) {
    return PodPhases.isGone(pod);
  }

  /**
   * A pod that may hold a lock left or finished. When it is gone the lock is stale: the next pod
   * may take the node now. When it was only served, the node agent releases the lock next; handing
   * the node on before that removal is seen would make the next pod find the lock still set and
   * take it over (a read of the holder, an Event and often a conflict), so it waits for {@link
   * #observe}.
   */
  private void holderDone(Pod pod, boolean gone) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    List<Pod> wake = new ArrayList<>();
    synchronized (this) {
      for (Iterator<Map.Entry<String, Slot>> it = slots.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, Slot> e = it.next();
        Slot s = e.getValue();
        s.blocked.remove(uid);
        if (gone) {
          forget(s, uid);
        }
        if (s.owner != null && s.acquired && s.owner.uid().equals(uid)) {
          if (!gone && !s.inMemory && heldBy(s.observed, ns, name)) {
            if (s.ownerDoneAt == null) {
              s.ownerDoneAt = handle.clock().instant();
            }
          } else {
            s.owner = null;
            s.acquired = false;
            promote(s);
          }
        }
        if (s.observed != null && !s.blocked.isEmpty()) {
          Decoded<NodeLock> d = NodeLock.decode(s.observed);
          if (d instanceof Decoded.Ok<NodeLock> ok && ok.value().isHeldBy(ns, name)) {
            wake.addAll(s.blocked.values());
            s.blocked.clear();
          }
        }
      }
    }
    activate(wake);
  }

  /**
   * Drops every claim of a deleted pod on the node: its place among the waiters, a yielded claim,
   * its turn in PreBind (which then fails at once) and an owner's claim it never acted on, so that
   * the node goes to the next live pod and no doomed binding runs for it.
   */
  @GuardedBy("this")
  private void forget(Slot s, String uid) {
    s.waiters.removeIf(c -> c.uid().equals(uid));
    s.yielded.remove(uid);
    waitingSince.remove(uid);
    Turn t = s.turns.remove(uid);
    if (t != null) {
      t.handed().completeExceptionally(new IllegalStateException("the pod was deleted"));
    }
    if (s.owner != null && !s.acquired && s.owner.uid().equals(uid)) {
      s.owner = null;
      promote(s);
    }
  }

  private double seconds(Instant since) {
    return Math.max(0, Duration.between(since, handle.clock().instant()).toNanos() / 1e9);
  }

  private static boolean heldBy(@Nullable String observed, String ns, String name) {
    return observed != null
        && NodeLock.decode(observed) instanceof Decoded.Ok<NodeLock> ok
        && ok.value().isHeldBy(ns, name);
  }

  private void activate(List<Pod> pods) {
    if (!pods.isEmpty()) {
      handle.activate(pods);
    }
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.NODE, ActionType.UPDATE_NODE_ANNOTATION),
            NodeLockPlugin::lockHint),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.ASSIGNED_POD,
                ActionType.DELETE,
                ActionType.UPDATE_POD_SCALE_DOWN,
                ActionType.UPDATE_POD_ANNOTATION)));
  }

  private static QueueingHint lockHint(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    String before = lockOf(oldObj);
    String after = lockOf(newObj);
    return before != null && !before.equals(after) ? QueueingHint.QUEUE : QueueingHint.SKIP;
  }

  private static @Nullable String lockOf(@Nullable HasMetadata o) {
    if (o == null || o.getMetadata() == null || o.getMetadata().getAnnotations() == null) {
      return null;
    }
    return o.getMetadata().getAnnotations().get(Annotations.MUTEX_LOCK);
  }
}
