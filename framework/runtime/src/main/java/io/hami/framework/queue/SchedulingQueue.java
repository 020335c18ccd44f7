package io.hami.framework.queue;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.QueuedPod;
import io.hami.framework.api.Status;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling queue: an active queue ordered by QueueSort, a backoff queue ordered by backoff
 * expiry, and a pool of unschedulable pods waiting for a cluster event.
 *
 * <p>Concurrency: every structure is guarded by {@link #lock}. Informer threads add, update, delete
 * and report events; the scheduling thread pops and requeues; a timer (or an in-memory driver)
 * calls the two flush methods. Hint functions run under the lock and must be cheap.
 *
 * <p>Requeueing: a failed pod goes to the unschedulable pool, unless it failed with an error
 * (backoff) or an event that one of its rejecting plugins cares about happened while it was being
 * scheduled (backoff, so the event is not lost). A matching event later moves it to the backoff
 * queue, or straight to the active queue when its backoff already expired. Pods left in the pool
 * longer than {@code maxInUnschedulable} are retried anyway.
 *
 * <p>Popping: the active queue first; when it is empty, the backoff queue's pods that backed off
 * after a rejection, in backoff order, as kube-scheduler does since v1.33
 * (SchedulerPopFromBackoffQ), so an idle scheduler retries a pod as soon as an event may have
 * unblocked it.
 */
public final class SchedulingQueue {
  private static final Logger log = LoggerFactory.getLogger(SchedulingQueue.class);

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private final InstantSource clock;
  private final BackoffPolicy backoffPolicy;
  private final PreEnqueueGate preEnqueue;
  private final RequeueHints hints;

  @GuardedBy("lock")
  private final TreeSet<QueuedPodInfo> active;

  @GuardedBy("lock")
  private final BackoffQueue backoff;

  @GuardedBy("lock")
  private final UnschedulablePool unschedulable;

  @GuardedBy("lock")
  private final Map<String, QueuedPodInfo> byUid = new HashMap<>();

  @GuardedBy("lock")
  private final Map<String, QueuedPodInfo> inFlight = new HashMap<>();

  @GuardedBy("lock")
  private final InFlightEvents inFlightEvents = new InFlightEvents();

  @GuardedBy("lock")
  private final GonePods gone = new GonePods();

  /** How long a pod found gone stays refused; far longer than any informer lag. */
  static final Duration GONE_TTL = GonePods.TTL;

  @GuardedBy("lock")
  private long seq;

  @GuardedBy("lock")
  private long schedulingCycle;

  @GuardedBy("lock")
  private boolean closed;

  /**
   * @param sort the QueueSort order
   * @param preEnqueue the PreEnqueue plugins of the pod's profile
   * @param registrations the events each plugin registered, by plugin name; a rejecting plugin
   *     without an entry is interested in every event
   */
  public SchedulingQueue(
      Comparator<QueuedPod> sort,
      Function<Pod, List<PreEnqueuePlugin>> preEnqueue,
      Map<String, List<ClusterEventWithHint>> registrations,
      InstantSource clock,
      QueueTimeouts timeouts) {
    this.clock = requireNonNull(clock);
    this.unschedulable = new UnschedulablePool(timeouts.maxInUnschedulable());
    this.preEnqueue = new PreEnqueueGate(preEnqueue, this.clock);
    this.hints = new RequeueHints(registrations);
    Comparator<QueuedPodInfo> bySort = sort::compare;
    this.active = new TreeSet<>(bySort.thenComparingLong(i -> i.seq));
    this.backoffPolicy = new BackoffPolicy(timeouts.initialBackoff(), timeouts.maxBackoff());
    this.backoff = new BackoffQueue(bySort, backoffPolicy);
  }

  /** Adds a new pending pod; a pod already known is updated instead. */
  public void add(Pod pod) {
    lock.lock();
    try {
      String uid = pod.getMetadata().getUid();
      if (isGone(uid)) {
        return;
      }
      QueuedPodInfo existing = byUid.get(uid);
      if (existing != null || inFlight.containsKey(uid)) {
        updateLocked(pod);
        return;
      }
      QueuedPodInfo info = new QueuedPodInfo(pod, clock.instant());
      byUid.put(uid, info);
      enqueue(info);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies an update of a pending pod. A change to its spec, labels or annotations retries it;
   * anything else (status, resourceVersion) only refreshes the stored object.
   */
  public void update(Pod oldPod, Pod newPod) {
    lock.lock();
    try {
      if (isGone(newPod.getMetadata().getUid())) {
        return;
      }
      if (!byUid.containsKey(newPod.getMetadata().getUid())
          && !inFlight.containsKey(newPod.getMetadata().getUid())) {
        QueuedPodInfo info = new QueuedPodInfo(newPod, clock.instant());
        byUid.put(info.uid(), info);
        enqueue(info);
        return;
      }
      updateLocked(newPod);
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private void updateLocked(Pod newPod) {
    String uid = newPod.getMetadata().getUid();
    QueuedPodInfo flying = inFlight.get(uid);
    if (flying != null) {
      flying.setPod(newPod);
      return;
    }
    QueuedPodInfo info = byUid.get(uid);
    if (info == null) {
      return;
    }
    Pod oldPod = info.pod();
    boolean relevant = PodUpdates.isRelevant(oldPod, newPod, info.ownAnnotations());
    if (active.remove(info)) {
      info.setPod(newPod);
      active.add(info);
      return;
    }
    if (backoff.remove(info)) {
      info.setPod(newPod);
      backoff.add(info);
      return;
    }
    info.setPod(newPod);
    if (relevant && unschedulable.remove(uid) != null) {
      info.unschedulablePlugins().clear();
      moveOut(info);
    }
  }

  /** Removes a pod from every sub-queue; a pod being scheduled is not requeued afterwards. */
  public void delete(Pod pod) {
    lock.lock();
    try {
      String uid = pod.getMetadata().getUid();
      inFlight.remove(uid);
      QueuedPodInfo info = byUid.remove(uid);
      if (info != null) {
        active.remove(info);
        backoff.remove(info);
        unschedulable.remove(uid);
      }
      trimInFlightEvents();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes a pod the API server no longer has, found by a write before its delete event came;
   * stale updates of it that the informer still delivers are ignored for {@link #GONE_TTL}.
   */
  public void deleteGone(Pod pod) {
    lock.lock();
    try {
      gone.add(pod.getMetadata().getUid(), clock.instant());
    } finally {
      lock.unlock();
    }
    delete(pod);
  }

  @GuardedBy("lock")
  private boolean isGone(String uid) {
    return gone.contains(uid, clock.instant());
  }

  /** Returns whether the pod is in any sub-queue or being scheduled. */
  public boolean contains(String uid) {
    lock.lock();
    try {
      return byUid.containsKey(uid) || inFlight.containsKey(uid);
    } finally {
      lock.unlock();
    }
  }

  /** Pops the next pod, waiting up to {@code timeout}; null on timeout or after close. */
  public @Nullable QueuedPodInfo pop(Duration timeout) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (!closed) {
        QueuedPodInfo next = nextLocked();
        if (next != null) {
          return take(next);
        }
        if (nanos <= 0) {
          return null;
        }
        nanos = notEmpty.awaitNanos(nanos);
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /** Pops the next pod without waiting; null when no pod can be popped. */
  public @Nullable QueuedPodInfo tryPop() {
    lock.lock();
    try {
      QueuedPodInfo next = nextLocked();
      return next == null ? null : take(next);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The next pod to schedule, removed from its queue: the head of the active queue or, when that is
   * empty, the backoff queue's first pod that backs off after a rejection (kube-scheduler's
   * SchedulerPopFromBackoffQ). An idle scheduler need not wait out a rejection's backoff: the pod
   * only got there because an event that may help it came. An error's backoff protects the API
   * server and is always waited out.
   */
  @GuardedBy("lock")
  private @Nullable QueuedPodInfo nextLocked() {
    QueuedPodInfo head = active.pollFirst();
    if (head != null) {
      return head;
    }
    for (Iterator<QueuedPodInfo> it = backoff.iterator(); it.hasNext(); ) {
      QueuedPodInfo info = it.next();
      if (info.backoffForError) {
        continue;
      }
      it.remove();
      if (preEnqueue.passes(info)) {
        return info;
      }
      unschedulable.put(info);
    }
    return null;
  }

  @GuardedBy("lock")
  private QueuedPodInfo take(QueuedPodInfo info) {
    byUid.remove(info.uid());
    inFlight.put(info.uid(), info);
    info.incrementAttempts();
    info.popEventSeq = inFlightEvents.seq();
    schedulingCycle++;
    info.lastFailureCycle = schedulingCycle;
    return info;
  }

  /** The number of pods popped so far. */
  public long schedulingCycle() {
    lock.lock();
    try {
      return schedulingCycle;
    } finally {
      lock.unlock();
    }
  }

  /** Ends a successful attempt: the pod leaves the queue for good. */
  public void done(String uid) {
    lock.lock();
    try {
      inFlight.remove(uid);
      trimInFlightEvents();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Puts back a pod whose attempt failed. {@code status} is the failure: an error backs off; a
   * rejection parks the pod as unschedulable with {@code rejectors} as the plugins whose events can
   * requeue it. A pod deleted meanwhile is dropped.
   */
  public void requeue(QueuedPodInfo info, Status status, Collection<String> rejectors) {
    requeue(info, status, rejectors, true);
  }

  /**
   * Puts back a pod rejected while it waited at Permit, where it had a place: the events seen
   * during its wait do not count (what they could change was already weighed by the plugin that
   * held it), so a released gang waits for a new event instead of coming straight back.
   */
  public void requeueAfterPermit(QueuedPodInfo info, Status status, Collection<String> rejectors) {
    requeue(info, status, rejectors, false);
  }

  private void requeue(
      QueuedPodInfo info, Status status, Collection<String> rejectors, boolean countInFlight) {
    lock.lock();
    try {
      if (inFlight.remove(info.uid()) == null) {
        return;
      }
      info.unschedulablePlugins().clear();
      info.unschedulablePlugins().addAll(rejectors);
      info.setTimestamp(clock.instant());
      info.seq = ++seq;
      byUid.put(info.uid(), info);
      info.backoffForError = status.code().triggersBackoff();
      if (info.backoffForError || (countInFlight && sawMatchingEventInFlight(info))) {
        addBackoff(info);
      } else {
        unschedulable.put(info);
      }
      trimInFlightEvents();
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private boolean sawMatchingEventInFlight(QueuedPodInfo info) {
    return inFlightEvents.sawMatching(info, hints);
  }

  @GuardedBy("lock")
  private void trimInFlightEvents() {
    inFlightEvents.trim(inFlight.values());
  }

  /**
   * Reports a cluster event: every unschedulable pod that one of its rejecting plugins'
   * registrations (and hints) accepts moves to backoff, or to active when its backoff expired.
   */
  public void onEvent(
      ClusterEvent event, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    lock.lock();
    try {
      inFlightEvents.add(event, oldObj, newObj, !inFlight.isEmpty());
      for (QueuedPodInfo info :
          unschedulable.pollIf(i -> hints.worthRequeuing(i, event, oldObj, newObj))) {
        moveOut(info);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Moves the given pods to the active queue now, skipping backoff. Unknown pods are ignored. */
  public void activate(Collection<Pod> pods) {
    lock.lock();
    try {
      for (Pod p : pods) {
        QueuedPodInfo info = byUid.get(p.getMetadata().getUid());
        if (info == null || active.contains(info)) {
          continue;
        }
        if (backoff.remove(info) || unschedulable.remove(info.uid()) != null) {
          info.pendingPlugins().clear();
          enqueue(info);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Moves pods whose backoff expired to the active queue. Returns how many moved. */
  public int flushBackoffCompleted() {
    lock.lock();
    try {
      List<QueuedPodInfo> done = backoff.pollExpired(clock.instant());
      for (QueuedPodInfo info : done) {
        enqueue(info);
      }
      return done.size();
    } finally {
      lock.unlock();
    }
  }

  /** Retries pods that waited in the unschedulable pool longer than the limit. */
  public int flushUnschedulableLeftover() {
    lock.lock();
    try {
      List<QueuedPodInfo> moved = unschedulable.pollLeftover(clock.instant());
      for (QueuedPodInfo info : moved) {
        moveOut(info);
      }
      return moved.size();
    } finally {
      lock.unlock();
    }
  }

  /** The earliest backoff expiry, if any pod is backing off. */
  public Optional<Instant> nextBackoffExpiry() {
    lock.lock();
    try {
      return backoff.nextExpiry();
    } finally {
      lock.unlock();
    }
  }

  /** The time at which the oldest unschedulable pod will be flushed, if any. */
  public Optional<Instant> nextUnschedulableFlush() {
    lock.lock();
    try {
      return unschedulable.nextFlush();
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private void moveOut(QueuedPodInfo info) {
    if (backoff.isBackingOff(info, clock.instant())) {
      addBackoff(info);
    } else {
      enqueue(info);
    }
  }

  @GuardedBy("lock")
  private void addBackoff(QueuedPodInfo info) {
    backoff.add(info);
    if (!info.backoffForError) {
      // An idle pop may take it at once.
      notEmpty.signal();
    }
  }

  /** Puts the pod in the active queue if its PreEnqueue plugins let it, else in the pool. */
  @GuardedBy("lock")
  private void enqueue(QueuedPodInfo info) {
    if (preEnqueue.passes(info)) {
      pushActive(info);
    } else {
      unschedulable.put(info);
    }
  }

  @GuardedBy("lock")
  private void pushActive(QueuedPodInfo info) {
    info.seq = ++seq;
    active.add(info);
    notEmpty.signal();
  }

  /** The backoff duration after {@code attempts} failures: initial doubling up to max. */
  Duration backoffDuration(int attempts) {
    return backoffPolicy.duration(attempts);
  }

  public int activeSize() {
    lock.lock();
    try {
      return active.size();
    } finally {
      lock.unlock();
    }
  }

  public int backoffSize() {
    lock.lock();
    try {
      return backoff.size();
    } finally {
      lock.unlock();
    }
  }

  public int unschedulableSize() {
    lock.lock();
    try {
      return unschedulable.size();
    } finally {
      lock.unlock();
    }
  }

  public int inFlightSize() {
    lock.lock();
    try {
      return inFlight.size();
    } finally {
      lock.unlock();
    }
  }

  /** The pods waiting in any sub-queue (not those being scheduled), for diagnostics. */
  public List<Pod> pendingPods() {
    lock.lock();
    try {
      List<Pod> out = new ArrayList<>(byUid.size());
      for (QueuedPodInfo i : byUid.values()) {
        out.add(i.pod());
      }
      return out;
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiting {@link #pop} and makes further pops return null. */
  public void close() {
    lock.lock();
    try {
      closed = true;
      notEmpty.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** For tests: whether the pod is in the unschedulable pool. */
  public boolean isUnschedulable(String uid) {
    lock.lock();
    try {
      return unschedulable.contains(uid);
    } finally {
      lock.unlock();
    }
  }

  /** For tests: whether the pod is in the backoff queue. */
  public boolean isBackingOff(String uid) {
    lock.lock();
    try {
      QueuedPodInfo i = byUid.get(uid);
      return i != null && backoff.contains(i);
    } finally {
      lock.unlock();
    }
  }

  /** For tests: whether the pod is in the active queue. */
  public boolean isActive(String uid) {
    lock.lock();
    try {
      QueuedPodInfo i = byUid.get(uid);
      return i != null && active.contains(i);
    } finally {
      lock.unlock();
    }
  }
}
