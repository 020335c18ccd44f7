package io.hami.plugins.nodelock;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.WaitingPod;
import io.hami.model.Decoded;
import io.hami.model.lock.NodeLock;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-node queues of {@link NodeLockPlugin}: for each node, the pod of this scheduler that owns
 * it (holds or is about to take its lock), the pods waiting at Permit, the pods that yielded it
 * while another Permit plugin held them, and the pods sent back to the queue by a lock held on the
 * Node. Hands a node on when its owner is done. Makes no API calls; guarded by its own monitor.
 */
final class NodeQueues {

  private static final Logger log = LoggerFactory.getLogger(NodeQueues.class);

  /** A pod of this scheduler that holds or is about to take a node's lock. */
  record Claim(String uid, String namespace, String name) {
    static Claim of(Pod pod) {
      return new Claim(
          pod.getMetadata().getUid(),
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName());
    }

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
     * Pods allowed at Permit that another Permit plugin still holds (a gang member waiting for its
     * group): they do not keep the node, and take it back in PreBind.
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

    boolean idle() {
      return owner == null
          && waiters.isEmpty()
          && blocked.isEmpty()
          && yielded.isEmpty()
          && turns.isEmpty();
    }
  }

  /**
   * How long a served owner's lock may linger before a new pod may take the node anyway (a node
   * agent that reported success but never released; PreBind then takes the stale lock over).
   */
  static final Duration SERVED_LOCK_GRACE = Duration.ofSeconds(10);

  private final FrameworkHandle handle;
  private final String pluginName;
  private final Duration lockTimeout;
  private final CounterDataPoint expired;
  private final DistributionDataPoint waitAllowed;
  private final DistributionDataPoint waitRejected;

  @GuardedBy("this")
  private final Map<String, Slot> slots = new HashMap<>();

  /** When each pod queued at Permit began to wait, by UID. */
  @GuardedBy("this")
  private final Map<String, Instant> waitingSince = new HashMap<>();

  /**
   * @param expired counts in-memory claims that expired
   * @param waitAllowed observes the Permit wait of pods handed a node
   * @param waitRejected observes the Permit wait of pods withdrawn while waiting
   */
  NodeQueues(
      FrameworkHandle handle,
      String pluginName,
      Duration lockTimeout,
      CounterDataPoint expired,
      DistributionDataPoint waitAllowed,
      DistributionDataPoint waitRejected) {
    this.handle = requireNonNull(handle, "handle");
    this.pluginName = requireNonNull(pluginName, "pluginName");
    this.lockTimeout = requireNonNull(lockTimeout, "lockTimeout");
    this.expired = requireNonNull(expired, "expired");
    this.waitAllowed = requireNonNull(waitAllowed, "waitAllowed");
    this.waitRejected = requireNonNull(waitRejected, "waitRejected");
  }

  @GuardedBy("this")
  private Slot slot(String node) {
    return slots.computeIfAbsent(node, n -> new Slot());
  }

  /**
   * Permit: the node goes to the pod if no one owns it, its owner is held elsewhere (yields it), or
   * its owner's claim lingered or expired. Returns false when the pod was queued behind the owner.
   */
  synchronized boolean enter(String nodeName, Claim me) {
    Slot s = slot(nodeName);
    Instant now = handle.clock().instant();
    boolean lingering =
        s.ownerDoneAt != null && !now.isBefore(s.ownerDoneAt.plus(SERVED_LOCK_GRACE));
    if (s.owner != null
        && s.acquired
        && s.inMemory
        && s.acquiredAt != null
        && !now.isBefore(s.acquiredAt.plus(lockTimeout))) {
      // Its agent never reported it served: as a node lock would, the claim expires.
      expired.inc();
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
      return true;
    }
    s.waiters.addLast(me);
    waitingSince.put(me.uid(), now);
    return false;
  }

  /**
   * Unreserve: drops the pod from the node's queue. Returns whether it owns the node with a lock on
   * the Node, which the caller releases before {@link #released}.
   */
  synchronized boolean withdraw(String nodeName, Claim me) {
    Slot s = slot(nodeName);
    s.waiters.removeIf(c -> c.uid().equals(me.uid()));
    s.yielded.remove(me.uid());
    s.turns.remove(me.uid());
    Instant since = waitingSince.remove(me.uid());
    if (since != null) {
      waitRejected.observe(seconds(since));
    }
    return s.owner != null && s.owner.uid().equals(me.uid()) && s.acquired && !s.inMemory;
  }

  /** Unreserve, after {@link #withdraw}: an owner gives the node to the next pod. */
  synchronized void released(String nodeName, Claim me) {
    Slot s = slots.get(nodeName);
    if (s != null && s.owner != null && s.owner.uid().equals(me.uid())) {
      s.owner = null;
      s.acquired = false;
      promote(s);
    }
  }

  /**
   * A pod that yielded the node while held at Permit takes it back: returns null when it did not
   * yield or the node is free (it owns it now), otherwise a future completed once the node is
   * handed to it (exceptionally when the node or the pod is deleted meanwhile).
   */
  synchronized @Nullable CompletableFuture<Void> takeBack(String nodeName, Claim me) {
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
    CompletableFuture<Void> handed = new CompletableFuture<>();
    s.turns.put(me.uid(), new Turn(me, handed));
    return handed;
  }

  /** A pod gave up waiting for the node it yielded. */
  synchronized void dropTurn(String nodeName, Claim me) {
    slot(nodeName).turns.remove(me.uid());
  }

  /** PreBind took the node's lock for the pod. */
  synchronized void lockTaken(String nodeName, Claim me) {
    Slot s = slot(nodeName);
    s.owner = me;
    s.acquired = true;
    s.inMemory = false;
  }

  /** Lock mode {@code scheduler}: the pod holds the node in memory since {@code since}. */
  synchronized void heldInMemory(String nodeName, Claim me, Instant since) {
    Slot s = slot(nodeName);
    s.owner = me;
    s.acquired = true;
    s.inMemory = true;
    s.acquiredAt = since;
  }

  /**
   * Lock mode {@code scheduler}: a pod waiting for Allocate since {@code since} holds the node if
   * no one owns it here.
   */
  synchronized void adopt(String nodeName, Claim holder, Instant since) {
    Slot s = slot(nodeName);
    if (s.owner != null) {
      return;
    }
    s.owner = holder;
    s.acquired = true;
    s.inMemory = true;
    s.acquiredAt = since;
  }

  /** The pod found the node locked by another scheduler: it is re-activated when that ends. */
  synchronized void blocked(String nodeName, Pod pod) {
    slot(nodeName).blocked.put(pod.getMetadata().getUid(), pod);
  }

  /** The node was deleted: pods yielded in PreBind fail now. Returns the blocked pods to wake. */
  synchronized List<Pod> nodeDeleted(String nodeName) {
    Slot s = slots.remove(nodeName);
    if (s == null) {
      return List.of();
    }
    for (Turn t : s.turns.values()) {
      t.handed().completeExceptionally(new IllegalStateException("the node was deleted"));
    }
    for (Claim c : s.waiters) {
      waitingSince.remove(c.uid());
    }
    return new ArrayList<>(s.blocked.values());
  }

  /**
   * The node's lock annotation as the informer delivered it ({@code value}, null when none): a
   * released or replaced lock of our owner hands the node on. Returns the blocked pods to wake.
   */
  synchronized List<Pod> lockSeen(String nodeName, @Nullable String value) {
    Slot s = slots.get(nodeName);
    if (s == null) {
      if (value == null) {
        return List.of();
      }
      s = slot(nodeName);
    }
    if (Objects.equals(s.observed, value)) {
      return List.of();
    }
    s.observed = value;
    NodeLock lock = value == null ? null : NodeLock.decode(value).toOptional().orElse(null);
    if (s.owner != null && s.acquired && !s.inMemory && !s.owner.is(lock)) {
      // The node agent released our holder's lock (or someone replaced it): next pod.
      s.owner = null;
      s.acquired = false;
      promote(s);
    }
    List<Pod> wake = List.of();
    if (value == null && !s.blocked.isEmpty()) {
      wake = new ArrayList<>(s.blocked.values());
      s.blocked.clear();
    }
    if (value == null && s.idle()) {
      slots.remove(nodeName);
    }
    return wake;
  }

  /**
   * A pod that may hold a lock left or finished. When it is gone the lock is stale: the next pod
   * may take the node now. When it was only served, the node agent releases the lock next; handing
   * the node on before that removal is seen would make the next pod find the lock still set and
   * take it over (a read of the holder, an Event and often a conflict), so it waits for {@link
   * #lockSeen}. Returns the blocked pods to wake.
   */
  synchronized List<Pod> holderDone(Pod pod, boolean gone) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    List<Pod> wake = new ArrayList<>();
    for (Slot s : slots.values()) {
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
      if (!s.blocked.isEmpty() && heldBy(s.observed, ns, name)) {
        wake.addAll(s.blocked.values());
        s.blocked.clear();
      }
    }
    return wake;
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
      w.allow(pluginName);
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

  private boolean heldElsewhere(WaitingPod w) {
    Set<String> pending = w.pendingPlugins();
    return !pending.isEmpty() && !(pending.size() == 1 && pending.contains(pluginName));
  }

  private double seconds(Instant since) {
    return Math.max(0, Duration.between(since, handle.clock().instant()).toNanos() / 1e9);
  }

  private static boolean heldBy(@Nullable String observed, String ns, String name) {
    return observed != null
        && NodeLock.decode(observed) instanceof Decoded.Ok<NodeLock> ok
        && ok.value().isHeldBy(ns, name);
  }
}
