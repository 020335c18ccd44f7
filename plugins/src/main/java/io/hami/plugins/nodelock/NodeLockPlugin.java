package io.hami.plugins.nodelock;

import static java.util.Objects.requireNonNull;

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
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import io.hami.plugins.metrics.GpuMetrics;
import io.hami.plugins.nodelock.NodeQueues.Claim;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.VgpuPlugin;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import java.time.Instant;
import java.time.ZoneId;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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
 * for different nodes overlap instead of queueing on one lock; with {@link
 * NodeLockArgs#maxBusyNodes} only until that many feasible nodes have such pods. A pod that another
 * Permit plugin still holds (a gang member waiting for its group) does not keep the node from
 * others: it yields its place, and takes the node back in PreBind once allowed, waiting there for
 * the pod holding it then, so that members of one gang on one node never wait for each other.
 * PreBind takes the lock with a resourceVersion-guarded patch, replacing a stale lock (expired,
 * holder gone, terminal, finished, or bound elsewhere), never one whose holder is bound and waiting
 * for Allocate. A lock held by another scheduler sends the pod back to the queue; it is
 * re-activated by the lock's removal event.
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
 * and the cluster listener on the cache thread; the per-node queues ({@link NodeQueues}) are
 * guarded by their own monitor, and API calls are made outside it.
 */
public final class NodeLockPlugin
    implements PreScorePlugin,
        ScorePlugin,
        ReservePlugin,
        PermitPlugin,
        PreBindPlugin,
        EnqueueExtensions {

  public static final String NAME = "nodelock";

  private static final Logger log = LoggerFactory.getLogger(NodeLockPlugin.class);

  /** Marks a cycle whose pod needs the lock on {@link #node}. */
  record Needed(String node) implements StateData {}

  static final StateKey<Needed> NEEDED = StateKey.of("Reserve" + NAME, Needed.class);

  /** Marks a cycle in which {@link NodeLockArgs#maxBusyNodes} feasible nodes are busy. */
  record Saturated() implements StateData {}

  static final StateKey<Saturated> SATURATED = StateKey.of("PreScore" + NAME, Saturated.class);

  private final FrameworkHandle handle;
  private final NodeLockArgs args;
  private final @Nullable NodeLockClient client;

  private final NodeQueues queues;

  /** Each node as the informer last delivered it, for a lock patch without a read first. */
  private final Map<String, Node> seen = new ConcurrentHashMap<>();

  private final Map<StaleCause, CounterDataPoint> broken = new EnumMap<>(StaleCause.class);
  private final CounterDataPoint heldOnNode;
  private final CounterDataPoint heldAtPermit;
  private final CounterDataPoint permitWaits;

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
    queues =
        new NodeQueues(
            handle,
            NAME,
            args.lockTimeout(),
            requireNonNull(broken.get(StaleCause.EXPIRED)),
            m.permitWait("allowed", profile),
            m.permitWait("rejected", profile));
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

  // Score

  /**
   * With {@link NodeLockArgs#maxBusyNodes}: counts the feasible nodes with pods in the lock's
   * pipeline, and when they reach the limit marks the cycle so that Score ranks every node alike.
   */
  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    state.delete(SATURATED);
    if (args.maxBusyNodes() > 0
        && needsLock(state)
        && busyNodes(feasibleNodes, args.maxBusyNodes()) >= args.maxBusyNodes()) {
      state.write(SATURATED, new Saturated());
    }
    return Status.success();
  }

  /** Nodes with pods in the lock's pipeline, counted up to {@code limit}. */
  static int busyNodes(List<NodeInfo> nodes, int limit) {
    int busy = 0;
    for (int i = 0; i < nodes.size() && busy < limit; i++) {
      if (inPipeline(nodes.get(i)) > 0) {
        busy++;
      }
    }
    return busy;
  }

  /**
   * Prefers nodes with fewer pods in the lock's pipeline: placed but not yet bound, or bound and
   * not yet served by the node agent. Each of them holds or waits for the node's lock, so a pod
   * sent there waits for all of them in turn, while a node without any binds at once. Reads only
   * the snapshot. Ranks every node alike once {@link NodeLockArgs#maxBusyNodes} are busy.
   */
  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    if (!needsLock(state) || state.get(SATURATED) != null) {
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
    Claim me = Claim.of(pod);
    if (queues.withdraw(n.node(), me) && client != null) {
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
    queues.released(n.node(), me);
  }

  // Permit

  @Override
  public PermitResult permit(CycleState state, Pod pod, String nodeName) {
    if (state.get(NEEDED) == null || queues.enter(nodeName, Claim.of(pod))) {
      return PermitResult.allow();
    }
    heldAtPermit.inc();
    permitWaits.inc();
    return PermitResult.waitFor(args.waitTimeout());
  }

  /**
   * A pod that yielded the node while held at Permit takes it back before it locks the node: now,
   * if no one holds it, or once the holder is done (up to the wait timeout). Returns a rejection
   * when the node did not come back in time, null to go on.
   */
  private @Nullable Status takeBack(Claim me, String nodeName) {
    CompletableFuture<Void> handed = queues.takeBack(nodeName, me);
    if (handed == null) {
      return null;
    }
    try {
      handed.get(args.waitTimeout().toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (TimeoutException | ExecutionException e) {
      queues.dropTurn(nodeName, me);
      return Status.unschedulable("node " + nodeName + " stayed locked by another pod");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      queues.dropTurn(nodeName, me);
      return Status.error(e);
    }
  }

  // PreBind

  @Override
  public Status preBind(CycleState state, Pod pod, String nodeName) {
    if (state.get(NEEDED) == null || client == null) {
      return Status.skip();
    }
    Claim me = Claim.of(pod);
    Status back = takeBack(me, nodeName);
    if (back != null) {
      return back;
    }
    if (args.lockFree() && LockFreeNodes.lockFree(seen.get(nodeName))) {
      // The node's agent finds this pod without a lock; the order kept here is the lock.
      queues.heldInMemory(nodeName, me, handle.clock().instant());
      return Status.success();
    }
    NodeLockClient.Result r;
    try {
      r = client.acquire(nodeName, me.namespace(), me.name(), seen.get(nodeName));
    } catch (KubernetesClientException e) {
      return Status.error(e);
    }
    if (r instanceof NodeLockClient.Result.Acquired a) {
      queues.lockTaken(nodeName, me);
      if (a.broken() != null) {
        tookOver(pod, nodeName, a.broken());
      }
      return Status.success();
    }
    if (r instanceof NodeLockClient.Result.Held h) {
      heldOnNode.inc();
      queues.blocked(nodeName, pod);
      return Status.unschedulable("node " + nodeName + " is locked by " + h.holder());
    }
    return Status.unschedulable("node " + nodeName + " no longer exists");
  }

  private void tookOver(Pod pod, String nodeName, LockDecision.Stale st) {
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
        activate(queues.nodeDeleted(node.getMetadata().getName()));
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
          activate(queues.holderDone(newPod, isGone(newPod)));
        } else if (args.lockFree()) {
          adoptAllocating(newPod);
        }
      }

      @Override
      public void onPodDelete(Pod pod) {
        activate(queues.holderDone(pod, true));
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
    queues.adopt(node, Claim.of(pod), bound);
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
    activate(queues.lockSeen(name, a == null ? null : a.get(Annotations.MUTEX_LOCK)));
  }

  /** Whether the pod is deleted or terminal, so no node agent will release its lock. */
  private static boolean isGone(Pod pod) {
    return PodPhases.isGone(pod);
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
