package io.hami.framework.runtime;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.QueuedPod;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.bind.Binder;
import io.hami.framework.cache.CacheSnapshot;
import io.hami.framework.cache.SchedulerCache;
import io.hami.framework.config.ConfigException;
import io.hami.framework.config.ProfileConfig;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.queue.QueuedPodInfo;
import io.hami.framework.queue.SchedulingQueue;
import io.hami.model.explain.ScheduleRecord.Failed;
import io.hami.model.explain.ScheduleRecordCodec;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling loop: pops one pod at a time, runs the scheduling cycle (PreFilter, Filter fanned
 * out over a sample of nodes, PostFilter on failure, PreScore, Score, NormalizeScore, Reserve,
 * Permit), assumes the pod in the cache and hands it to the binding cycle (Permit wait, PreBind,
 * Bind, PostBind) on the binding executor. Any failure after Reserve unreserves, forgets and
 * requeues the pod.
 *
 * <p>Concurrency: {@link #scheduleOne} runs on a single scheduling thread, which alone owns the
 * snapshot and {@link #nextStartNodeIndex}. Binding cycles run on the binding executor. Informer
 * threads reach the cache and queue through the {@link ClusterEventHandler}. {@link #tick} runs
 * the periodic work (backoff flush, leftover flush, Permit timeouts, assumed-pod expiry) from a
 * timer or an in-memory driver.
 */
public final class Scheduler {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  private static final int MIN_FEASIBLE_NODES_TO_FIND = 100;
  private static final int MIN_FEASIBLE_NODES_PERCENTAGE = 5;
  private static final int PLUGIN_SAMPLE_EVERY = 10;

  private final SchedulerConfiguration config;
  private final InstantSource clock;
  private final SchedulerMetrics metrics;
  private final Parallelizer parallelizer;
  private final PodInfoCache podInfos;
  private final SchedulerCache cache;
  private final CacheSnapshot snapshot = new CacheSnapshot();
  private final SchedulingQueue queue;
  private final ClusterEventHandler eventHandler;
  private final Map<String, FrameworkRuntime> profiles = new LinkedHashMap<>();
  private final @Nullable KubernetesClient client;
  private final Binder binder;
  private final StatusWriter statusWriter;
  private final EventRecorder eventRecorder;
  private final Executor bindingExecutor;
  private final int maxBindingsInFlight;
  private final AtomicInteger bindingsInFlight = new AtomicInteger();
  private final Object bindingDone = new Object();
  private final @Nullable Random tieBreak;
  private final SchedulingObserver observer;
  private final Map<String, WaitingPodImpl> waitingPods = new ConcurrentHashMap<>();
  private int nextStartNodeIndex;
  private Status[] statusScratch = new Status[0];
  private int[] feasibleScratch = new int[0];
  private long cycles;
  private Instant lastLeftoverFlush;
  private volatile boolean running;

  private Scheduler(Builder b) {
    this.config = b.config;
    this.clock = b.clock;
    this.metrics = new SchedulerMetrics(b.registry);
    this.parallelizer = b.parallelizer;
    this.podInfos = new PodInfoCache(b.podInfoCacheSize);
    this.cache = new SchedulerCache(clock, config.assumedPodTtl(), podInfos::get);
    this.client = b.client;
    this.binder = b.binder;
    this.statusWriter = b.statusWriter;
    this.eventRecorder = b.eventRecorder;
    this.bindingExecutor = b.bindingExecutor;
    this.maxBindingsInFlight = b.maxBindingsInFlight;
    this.tieBreak = b.seed == null ? null : new Random(b.seed);
    this.observer = b.observer;
    this.lastLeftoverFlush = clock.instant();

    // Plugins are created before the queue exists; their handle reaches it lazily.
    FieldErrors errors = FieldErrors.at("");
    QueueHolder holder = new QueueHolder();
    this.queueHolder = holder;
    this.eventHandlerHolder = new AtomicReference<>();
    for (int i = 0; i < config.profiles().size(); i++) {
      ProfileConfig p = config.profiles().get(i);
      FrameworkRuntime fwk =
          FrameworkRuntime.build(
              p,
              config.percentageOfNodesToScore(),
              b.registry0,
              new DefaultFrameworkHandle(p.schedulerName(), this),
              metrics,
              errors.child("profiles[" + i + "]"));
      if (fwk != null) {
        profiles.put(p.schedulerName(), fwk);
      }
    }
    String sortName = null;
    for (int i = 0; i < config.profiles().size(); i++) {
      FrameworkRuntime fwk = profiles.get(config.profiles().get(i).schedulerName());
      if (fwk == null) {
        continue;
      }
      if (sortName == null) {
        sortName = fwk.queueSort().name();
      } else if (!sortName.equals(fwk.queueSort().name())) {
        errors.child("profiles[" + i + "]")
            .invalid(
                "plugins.queueSort",
                fwk.queueSort().name(),
                "all profiles must use the same QueueSort plugin (" + sortName + ")");
      }
    }
    if (!errors.isEmpty()) {
      throw new ConfigException("scheduler configuration", errors.messages());
    }
    FrameworkRuntime first = profiles.values().iterator().next();
    Comparator<QueuedPod> sort = first.queueSort()::compare;
    Map<String, List<ClusterEventWithHint>> regs = new HashMap<>();
    for (FrameworkRuntime f : profiles.values()) {
      regs.putAll(f.eventRegistrations());
    }
    this.queue =
        new SchedulingQueue(
            sort,
            this::preEnqueuePlugins,
            regs,
            clock,
            config.podInitialBackoff(),
            config.podMaxBackoff(),
            config.podMaxInUnschedulablePods());
    holder.queue = queue;
    this.eventHandler =
        new ClusterEventHandler(
            cache, queue, pod -> profiles.containsKey(pod.getSpec().getSchedulerName()), metrics);
    eventHandler.addListener(
        new io.hami.framework.api.ClusterStateListener() {
          @Override
          public void onPodDelete(Pod pod) {
            podInfos.invalidate(pod.getMetadata().getUid());
          }
        });
    for (ClusterEventHandlerRegistration r : pendingListeners) {
      eventHandler.addListener(r.listener());
    }
    pendingListeners.clear();
    eventHandlerHolder.set(eventHandler);
    registerGauges();
  }

  private record ClusterEventHandlerRegistration(io.hami.framework.api.ClusterStateListener listener) {}

  private static final class QueueHolder {
    @Nullable SchedulingQueue queue;
  }

  private final QueueHolder queueHolder;
  private final AtomicReference<ClusterEventHandler> eventHandlerHolder;
  private final List<ClusterEventHandlerRegistration> pendingListeners = new ArrayList<>();

  private List<PreEnqueuePlugin> preEnqueuePlugins(Pod pod) {
    FrameworkRuntime f = profiles.get(pod.getSpec().getSchedulerName());
    return f == null ? List.of() : f.preEnqueuePlugins();
  }

  private void registerGauges() {
    metrics.gauge(
        "hami_scheduler_pending_pods",
        "Pods waiting in each sub-queue.",
        new String[] {"queue"},
        cb -> {
          cb.call(queue.activeSize(), "active");
          cb.call(queue.backoffSize(), "backoff");
          cb.call(queue.unschedulableSize(), "unschedulable");
          cb.call(queue.inFlightSize(), "in_flight");
        });
    metrics.gauge(
        "hami_scheduler_cache_size",
        "Objects in the scheduler cache.",
        new String[] {"type"},
        cb -> {
          cb.call(cache.nodeCount(), "nodes");
          cb.call(cache.podCount(), "pods");
          cb.call(cache.assumedPodCount(), "assumed_pods");
        });
    metrics.counterCallback(
        "hami_scheduler_pod_info_cache_lookups_total",
        "Lookups of derived pod data (requests, ports) by result.",
        new String[] {"result"},
        cb -> {
          var s = podInfos.stats();
          cb.call(s.hitCount(), "hit");
          cb.call(s.missCount(), "miss");
        });
  }

  // ---- accessors used by the handle, drivers and tests

  public SchedulingQueue queue() {
    SchedulingQueue q = queueHolder.queue;
    if (q == null) {
      throw new IllegalStateException("the queue is not ready while plugins are being created");
    }
    return q;
  }

  public SchedulerCache cache() {
    return cache;
  }

  public ClusterEventHandler eventHandler() {
    ClusterEventHandler h = eventHandlerHolder.get();
    if (h == null) {
      throw new IllegalStateException("the event handler is not ready while plugins are being created");
    }
    return h;
  }

  void addListener(io.hami.framework.api.ClusterStateListener l) {
    ClusterEventHandler h = eventHandlerHolder.get();
    if (h == null) {
      pendingListeners.add(new ClusterEventHandlerRegistration(l));
    } else {
      h.addListener(l);
    }
  }

  Snapshot snapshot() {
    return snapshot;
  }

  Optional<KubernetesClient> client() {
    return Optional.ofNullable(client);
  }

  InstantSource clock() {
    return clock;
  }

  EventRecorder eventRecorder() {
    return eventRecorder;
  }

  Parallelizer parallelizer() {
    return parallelizer;
  }

  PodInfoCache podInfos() {
    return podInfos;
  }

  Binder binder() {
    return binder;
  }

  @Nullable WaitingPodImpl waitingPod(String uid) {
    return waitingPods.get(uid);
  }

  public SchedulerMetrics metrics() {
    return metrics;
  }

  public SchedulerConfiguration config() {
    return config;
  }

  public Map<String, FrameworkRuntime> profiles() {
    return Map.copyOf(profiles);
  }

  // ---- periodic work

  /**
   * Periodic work: moves pods whose backoff expired, retries pods left unschedulable too long
   * (checked every 30 s), rejects Permit waits past their deadline, expires assumed pods.
   */
  public void tick() {
    queue.flushBackoffCompleted();
    Instant now = clock.instant();
    if (!now.isBefore(lastLeftoverFlush.plusSeconds(30))) {
      lastLeftoverFlush = now;
      queue.flushUnschedulableLeftover();
    }
    for (WaitingPodImpl w : waitingPods.values()) {
      if (!w.deadline().isAfter(now)) {
        w.expire();
      }
    }
    cache.cleanupExpiredAssumedPods();
  }

  /** Like {@link #tick} but flushes the unschedulable leftovers regardless of the 30 s cadence. */
  public void tickAll() {
    lastLeftoverFlush = Instant.MIN.plusSeconds(1);
    tick();
  }

  /** Pops and schedules one pod if the active queue has one; returns whether it did. */
  public boolean scheduleNext() {
    QueuedPodInfo info = queue.tryPop();
    if (info == null) {
      return false;
    }
    scheduleOne(info);
    return true;
  }

  /** Whether {@link #run} is looping (this replica schedules; a standby does not). */
  boolean running() {
    return running;
  }

  /** Runs the loop on the calling thread until interrupted or the queue is closed. */
  public void run() {
    running = true;
    try {
      runLoop();
    } finally {
      running = false;
    }
  }

  private void runLoop() {
    while (!Thread.currentThread().isInterrupted()) {
      QueuedPodInfo info;
      try {
        awaitBindingRoom();
        info = queue.pop(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (info != null) {
        try {
          scheduleOne(info);
        } catch (RuntimeException e) {
          // Never let one pod stop the loop.
          log.error("scheduling cycle crashed pod={}", info.key(), e);
          queue.requeue(info, Status.error(e), List.of());
        }
      }
    }
  }

  /**
   * Holds the scheduling thread while {@code maxBindingsInFlight} bindings are queued or running.
   * Without it the thread runs ahead of binding under a backlog, and every pod placed ahead
   * counts against its node in the lock-aware scores, so later pods scatter over ever more nodes
   * (with GPU spread, one fractional pod on each GPU of a node leaves no whole GPU there: at 41%
   * of a 1,000-node cluster's GPUs, 2% of the pods fit nowhere). Pods waiting at Permit hold no
   * room, so a lock held elsewhere for long does not stop pods for other nodes.
   */
  private void awaitBindingRoom() throws InterruptedException {
    if (maxBindingsInFlight <= 0) {
      return;
    }
    synchronized (bindingDone) {
      while (bindingsInFlight.get() >= maxBindingsInFlight) {
        bindingDone.wait(1000);
      }
    }
  }

  private void submitBinding(Runnable binding) {
    bindingsInFlight.incrementAndGet();
    try {
      bindingExecutor.execute(
          () -> {
            try {
              binding.run();
            } finally {
              bindingFinished();
            }
          });
    } catch (RuntimeException e) {
      bindingFinished();
      throw e;
    }
  }

  private void bindingFinished() {
    bindingsInFlight.decrementAndGet();
    if (maxBindingsInFlight > 0) {
      synchronized (bindingDone) {
        bindingDone.notifyAll();
      }
    }
  }

  /** Bindings queued or running now. */
  public int bindingsInFlight() {
    return bindingsInFlight.get();
  }

  // ---- the scheduling cycle

  /** Schedules one popped pod. Runs on the scheduling thread. */
  public void scheduleOne(QueuedPodInfo info) {
    Pod pod = info.pod();
    FrameworkRuntime fwk = profiles.get(pod.getSpec().getSchedulerName());
    if (fwk == null) {
      log.warn("no profile for pod {} (schedulerName {})", info.key(), pod.getSpec().getSchedulerName());
      queue.done(info.uid());
      return;
    }
    if (pod.getMetadata().getDeletionTimestamp() != null || cache.containsPod(info.uid())) {
      queue.done(info.uid());
      return;
    }
    long start = System.nanoTime();
    boolean sample = (cycles++ % PLUGIN_SAMPLE_EVERY) == 0;
    cache.updateSnapshot(snapshot);
    CycleState state = new CycleState();
    Attempt attempt = schedulePod(fwk, state, pod, sample);
    if (attempt.node == null) {
      Status status = attempt.status;
      if (status.isRejected() && fwk.hasPostFilterPlugins() && attempt.nodeStatuses != null) {
        var r = fwk.runPostFilter(state, pod, attempt.nodeStatuses);
        if (r.nominatedNodeName() != null) {
          log.info("pod {} nominated to {}", info.key(), r.nominatedNodeName());
        }
      }
      long nanos = System.nanoTime() - start;
      String result = status.code() == Code.ERROR ? "error" : "unschedulable";
      metrics.attempt(result, fwk.profileName(), nanos);
      handleFailure(info, status, attempt.message, attempt.rejectors, nanos, null, attempt.record);
      return;
    }
    String nodeName = attempt.node;
    if (attempt.selection != null) {
      state.write(NodeSelection.KEY, attempt.selection);
    }
    cache.assumePod(pod, nodeName);
    Status reserved = fwk.runReserve(state, pod, nodeName);
    if (!reserved.isSuccess()) {
      fwk.runUnreserve(state, pod, nodeName);
      cache.forgetPod(pod);
      long nanos = System.nanoTime() - start;
      metrics.attempt(reserved.code() == Code.ERROR ? "error" : "unschedulable", fwk.profileName(), nanos);
      handleFailure(info, reserved, reserved.message(), pluginSet(reserved), nanos, nodeName, null);
      return;
    }
    // Registered before Permit runs: a plugin may allow the pod from another thread between its
    // WAIT and the end of Permit (WaitingPodImpl keeps that allow).
    WaitingPodImpl waiting = new WaitingPodImpl(pod, nodeName);
    waitingPods.put(info.uid(), waiting);
    FrameworkRuntime.PermitOutcome permit = fwk.runPermit(state, pod, nodeName);
    if (permit.status().code() != Code.WAIT) {
      waitingPods.remove(info.uid());
    }
    if (!permit.status().isSuccess() && permit.status().code() != Code.WAIT) {
      fwk.runUnreserve(state, pod, nodeName);
      cache.forgetPod(pod);
      long nanos = System.nanoTime() - start;
      metrics.attempt("unschedulable", fwk.profileName(), nanos);
      handleFailure(
          info, permit.status(), permit.status().message(), pluginSet(permit.status()), nanos, nodeName, null);
      return;
    }
    WaitingPodImpl w = null;
    if (permit.status().code() == Code.WAIT) {
      waiting.settle(permit.waitingPlugins(), clock.instant().plus(permit.timeout()));
      w = waiting;
    }
    long nanos = System.nanoTime() - start;
    metrics.attempt("scheduled", fwk.profileName(), nanos);
    observer.scheduled(pod, nodeName, nanos);
    if (w == null) {
      submitBinding(() -> bindingCycle(fwk, state, info, nodeName, Status.success()));
    } else {
      w.result()
          .whenComplete(
              (s, ex) -> {
                waitingPods.remove(info.uid());
                Status permitted = ex != null ? Status.error(ex) : s;
                submitBinding(() -> bindingCycle(fwk, state, info, nodeName, permitted));
              });
    }
  }

  private void bindingCycle(
      FrameworkRuntime fwk, CycleState state, QueuedPodInfo info, String nodeName, Status permitted) {
    long start = System.nanoTime();
    Pod pod = info.pod();
    Status s = permitted;
    try {
      if (s.isSuccess()) {
        s = fwk.runPreBind(state, pod, nodeName);
      }
      if (s.isSuccess()) {
        s = fwk.runBind(state, pod, nodeName);
      }
    } catch (RuntimeException e) {
      s = Status.error(e);
    }
    if (!s.isSuccess()) {
      fwk.runUnreserve(state, pod, nodeName);
      cache.forgetPod(pod);
      metrics.binding("error", System.nanoTime() - start);
      observer.bindingFailed(pod, nodeName, s);
      String message = "binding to " + nodeName + " failed: " + s.message();
      handleFailure(info, s, message, pluginSet(s), 0, nodeName, null);
      return;
    }
    cache.finishBinding(pod);
    fwk.runPostBind(state, pod, nodeName);
    queue.done(info.uid());
    metrics.binding("success", System.nanoTime() - start);
    metrics.podScheduled(
        fwk.profileName(),
        Duration.between(info.initialTimestamp(), clock.instant()).toNanos());
    eventRecorder.record(
        pod,
        EventRecorder.Type.NORMAL,
        "Scheduled",
        "Binding",
        "Successfully assigned " + info.key() + " to " + nodeName);
    observer.bound(pod, nodeName);
  }

  private static Set<String> pluginSet(Status s) {
    return s.plugin() == null ? Set.of() : Set.of(s.plugin().split(","));
  }

  /**
   * Requeues a failed pod and writes its condition and Event when the message changed. The
   * attempt's record goes with the condition, so it is as fresh as the message and costs no write.
   *
   * @param node the node chosen before a later step failed, or null
   * @param record the Filter failure's record, or null to derive one from the status
   */
  private void handleFailure(
      QueuedPodInfo info,
      Status status,
      String message,
      Set<String> rejectors,
      long nanos,
      @Nullable String node,
      @Nullable Failed record) {
    Pod pod = info.pod();
    queue.requeue(info, status, rejectors);
    observer.failed(pod, status, message, nanos);
    if (message.equals(info.lastFailureMessage()) || conditionSays(pod, message)) {
      return;
    }
    info.setLastFailureMessage(message);
    String reason = status.code() == Code.ERROR ? "SchedulerError" : "Unschedulable";
    Failed r = record;
    if (r == null) {
      String why = status.message().isEmpty() ? message : status.message();
      int numAll = snapshot.nodes().size();
      r = AttemptRecords.failure(clock.instant(), reason, node, numAll, why, node == null ? numAll : 1);
    }
    statusWriter.podUnschedulable(pod, reason, message, ScheduleRecordCodec.encode(r));
    eventRecorder.record(pod, EventRecorder.Type.WARNING, "FailedScheduling", "Scheduling", message);
  }

  private static boolean conditionSays(Pod pod, String message) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("PodScheduled".equals(c.getType())
          && "False".equals(c.getStatus())
          && message.equals(c.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /** The result of the filter-and-score part of a cycle. */
  private static final class Attempt {
    @Nullable String node;
    Status status = Status.success();
    String message = "";
    Set<String> rejectors = Set.of();
    @Nullable Map<String, Status> nodeStatuses;
    int evaluated;
    @Nullable NodeSelection selection;
    @Nullable Failed record;
  }

  private Attempt schedulePod(FrameworkRuntime fwk, CycleState state, Pod pod, boolean sample) {
    Attempt a = new Attempt();
    List<NodeInfo> all = snapshot.nodes();
    int numAll = all.size();
    if (numAll == 0) {
      a.status = Status.unschedulable("no nodes available to schedule pods");
      a.message = "0/0 nodes are available: no nodes available to schedule pods.";
      return a;
    }
    FrameworkRuntime.PreFilterOutcome pre = fwk.runPreFilter(state, pod, snapshot, sample);
    if (!pre.status().isSuccess()) {
      a.status = pre.status();
      a.message =
          pre.status().code() == Code.ERROR
              ? "running PreFilter plugin " + pre.status().plugin() + ": " + pre.status().message()
              : "0/" + numAll + " nodes are available: " + pre.status().message() + ".";
      a.rejectors = pluginSet(pre.status());
      return a;
    }
    List<NodeInfo> candidates;
    boolean rotate;
    if (pre.nodeNames() != null) {
      candidates = new ArrayList<>();
      for (NodeInfo n : all) {
        if (pre.nodeNames().contains(n.name())) {
          candidates.add(n);
        }
      }
      rotate = false;
    } else {
      candidates = all;
      rotate = true;
    }
    int total = candidates.size();
    long filterStart = System.nanoTime();
    int numToFind = numFeasibleNodesToFind(fwk.percentageOfNodesToScore(), total);
    int startIdx = rotate && total > 0 ? nextStartNodeIndex % total : 0;
    if (statusScratch.length < total) {
      statusScratch = new Status[total];
    }
    Status[] statuses = statusScratch;
    if (feasibleScratch.length < numToFind) {
      feasibleScratch = new int[numToFind];
    }
    int[] feasibleIdx = feasibleScratch;
    int found;
    int processed;
    long[] pluginNanos = sample ? new long[fwk.filterPluginCount()] : null;
    AtomicReference<Status> error = new AtomicReference<>();
    // Verdicts are kept by position in the snapshot's node list, so only a scan of the whole list
    // reuses them.
    FilterVerdicts.PodClass podClass = rotate ? fwk.filterClass(state, pod, pre.skipFilter(), total) : null;
    if (!fwk.hasFilterPlugins()) {
      found = Math.min(numToFind, total);
      for (int i = 0; i < found; i++) {
        feasibleIdx[i] = (startIdx + i) % total;
      }
      processed = found;
    } else if (parallelizer.parallelism() == 1 || total < 2 * MIN_FEASIBLE_NODES_TO_FIND) {
      found = 0;
      processed = 0;
      for (int i = 0; i < total && found < numToFind; i++) {
        int idx = (startIdx + i) % total;
        processed++;
        Status s = fwk.runFilter(state, pod, candidates.get(idx), pre.skipFilter(), pluginNanos, podClass, idx);
        if (s.isSuccess()) {
          feasibleIdx[found++] = idx;
        } else {
          statuses[idx] = s;
          if (s.code() == Code.ERROR) {
            error.set(s);
            break;
          }
        }
      }
    } else {
      AtomicInteger foundCounter = new AtomicInteger();
      AtomicInteger processedCounter = new AtomicInteger();
      int st = startIdx;
      parallelizer.until(
          total,
          i -> {
            if (foundCounter.get() >= numToFind || error.get() != null) {
              return;
            }
            int idx = (st + i) % total;
            processedCounter.incrementAndGet();
            Status s = fwk.runFilter(state, pod, candidates.get(idx), pre.skipFilter(), pluginNanos, podClass, idx);
            if (s.isSuccess()) {
              int k = foundCounter.getAndIncrement();
              if (k < numToFind) {
                feasibleIdx[k] = idx;
              }
            } else {
              statuses[idx] = s;
              if (s.code() == Code.ERROR) {
                error.compareAndSet(null, s);
              }
            }
          });
      found = Math.min(foundCounter.get(), numToFind);
      processed = processedCounter.get();
      // Keep node order (relative to the start index) so results do not depend on thread timing
      // more than necessary.
      Integer[] boxed = new Integer[found];
      for (int i = 0; i < found; i++) {
        boxed[i] = feasibleIdx[i];
      }
      Arrays.sort(boxed, Comparator.comparingInt(x -> (x - st + total) % total));
      for (int i = 0; i < found; i++) {
        feasibleIdx[i] = boxed[i];
      }
    }
    if (rotate && total > 0) {
      nextStartNodeIndex = (startIdx + processed) % total;
    }
    a.evaluated = processed;
    try {
      return finishFilter(fwk, state, pod, a, candidates, total, numAll, pre, statuses, feasibleIdx,
          found, error, pluginNanos, filterStart);
    } finally {
      Arrays.fill(statuses, 0, total, null);
    }
  }

  private Attempt finishFilter(
      FrameworkRuntime fwk,
      CycleState state,
      Pod pod,
      Attempt a,
      List<NodeInfo> candidates,
      int total,
      int numAll,
      FrameworkRuntime.PreFilterOutcome pre,
      Status[] statuses,
      int[] feasibleIdx,
      int found,
      AtomicReference<Status> error,
      long @Nullable [] pluginNanos,
      long filterStart) {
    if (pluginNanos != null) {
      fwk.recordFilterSample(pluginNanos);
    }
    metrics.extensionPoint(
        "Filter",
        error.get() != null ? "Error" : "Success",
        fwk.profileName(),
        System.nanoTime() - filterStart);
    if (error.get() != null) {
      Status e = error.get();
      a.status = e;
      a.message = "running Filter plugin " + e.plugin() + ": " + e.message();
      a.rejectors = pluginSet(e);
      return a;
    }
    if (found == 0) {
      a.status = Status.unschedulable();
      int excluded = pre.nodeNames() != null ? numAll - total : 0;
      a.message = fitErrorMessage(numAll, statuses, total, excluded);
      a.record =
          AttemptRecords.filterFailure(clock.instant(), numAll, statuses, candidates, total, excluded,
              candidates == snapshot.nodes() ? snapshot.nameRanks() : null);
      Set<String> rejectors = new HashSet<>();
      Status last = null;
      for (int i = 0; i < total; i++) {
        Status s = statuses[i];
        // Plugins reuse one rejection across nodes; skip the repeats cheaply.
        if (s != null && s != last && s.plugin() != null) {
          rejectors.add(s.plugin());
          last = s;
        }
      }
      a.rejectors = rejectors;
      a.status = new Status(Code.UNSCHEDULABLE, List.of(a.message), null, null);
      if (fwk.hasPostFilterPlugins()) {
        Map<String, Status> m = new LinkedHashMap<>();
        for (int i = 0; i < total; i++) {
          if (statuses[i] != null) {
            m.put(candidates.get(i).name(), statuses[i]);
          }
        }
        a.nodeStatuses = m;
      }
      return a;
    }
    List<NodeInfo> feasible = new ArrayList<>(found);
    for (int i = 0; i < found; i++) {
      feasible.add(candidates.get(feasibleIdx[i]));
    }
    if (feasible.size() == 1) {
      a.node = feasible.get(0).name();
      a.selection = new NodeSelection(a.evaluated, 1, null, List.of());
      return a;
    }
    Status scoreError = prioritizeAndSelect(fwk, state, pod, feasible, a);
    if (scoreError != null) {
      a.node = null;
      a.status = scoreError;
      a.message = "running " + scoreError.plugin() + ": " + scoreError.message();
      a.rejectors = pluginSet(scoreError);
    }
    return a;
  }

  private @Nullable Status prioritizeAndSelect(
      FrameworkRuntime fwk, CycleState state, Pod pod, List<NodeInfo> feasible, Attempt a) {
    int plugins = fwk.scorePluginCount();
    boolean[] skip = new boolean[plugins];
    Status pre = fwk.runPreScore(state, pod, feasible, skip);
    if (pre != null) {
      return pre;
    }
    long scoreStart = System.nanoTime();
    int m = feasible.size();
    long[][] raw = new long[plugins][];
    for (int p = 0; p < plugins; p++) {
      raw[p] = skip[p] ? null : new long[m];
    }
    AtomicReference<Status> error = new AtomicReference<>();
    parallelizer.until(
        m,
        i -> {
          NodeInfo node = feasible.get(i);
          for (int p = 0; p < plugins; p++) {
            if (raw[p] == null) {
              continue;
            }
            try {
              raw[p][i] = fwk.runScore(p, state, pod, node);
            } catch (RuntimeException e) {
              error.compareAndSet(null, fwk.scoreError(p, pod, e));
            }
          }
        });
    if (error.get() != null) {
      metrics.extensionPoint("Score", "Error", fwk.profileName(), System.nanoTime() - scoreStart);
      return error.get();
    }
    long[] total = new long[m];
    for (int p = 0; p < plugins; p++) {
      if (raw[p] == null) {
        continue;
      }
      Status s = fwk.normalizeAndWeigh(p, state, pod, feasible, raw[p]);
      if (s != null) {
        metrics.extensionPoint("Score", "Error", fwk.profileName(), System.nanoTime() - scoreStart);
        return s;
      }
      for (int i = 0; i < m; i++) {
        total[i] += raw[p][i];
      }
    }
    metrics.extensionPoint("Score", "Success", fwk.profileName(), System.nanoTime() - scoreStart);
    int best = 0;
    int ties = 1;
    for (int i = 1; i < m; i++) {
      if (total[i] > total[best]) {
        best = i;
        ties = 1;
      } else if (total[i] == total[best] && tieBreak != null) {
        ties++;
        if (tieBreak.nextInt(ties) == 0) {
          best = i;
        }
      }
    }
    a.node = feasible.get(best).name();
    a.selection = AttemptRecords.scored(a.evaluated, feasible, total, best);
    return null;
  }

  /**
   * How many feasible nodes to look for: all when the cluster is small, otherwise the configured
   * percentage (adaptive when 0: 50% minus 1% per 125 nodes, at least 5%), never fewer than 100.
   */
  static int numFeasibleNodesToFind(int percentage, int numAll) {
    if (numAll < MIN_FEASIBLE_NODES_TO_FIND || percentage >= 100) {
      return numAll;
    }
    int p = percentage;
    if (p == 0) {
      p = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE, 50 - numAll / 125);
    }
    int num = (int) ((long) numAll * p / 100);
    return Math.max(num, MIN_FEASIBLE_NODES_TO_FIND);
  }

  /**
   * The PodScheduled message: {@code 0/N nodes are available: 4000 Reason A, 1000 Reason B.},
   * counts in descending order, then by reason.
   */
  static String fitErrorMessage(
      int numAll, @Nullable Status[] statuses, int count, int excludedByPreFilter) {
    // Count each distinct status object first: plugins reuse one rejection across many nodes.
    Map<Status, int[]> byStatus = new java.util.IdentityHashMap<>();
    Status last = null;
    int[] lastCount = new int[1];
    for (int i = 0; i < count; i++) {
      Status s = statuses[i];
      if (s == null) {
        continue;
      }
      if (s != last) {
        last = s;
        lastCount = byStatus.computeIfAbsent(s, k -> new int[1]);
      }
      lastCount[0]++;
    }
    Map<String, Integer> histogram = new HashMap<>();
    for (Map.Entry<Status, int[]> e : byStatus.entrySet()) {
      for (String r : e.getKey().reasons()) {
        histogram.merge(r, e.getValue()[0], Integer::sum);
      }
    }
    if (excludedByPreFilter > 0) {
      histogram.merge("node(s) didn't satisfy plugin(s) PreFilter", excludedByPreFilter, Integer::sum);
    }
    List<Map.Entry<String, Integer>> entries = new ArrayList<>(histogram.entrySet());
    entries.sort(
        Map.Entry.<String, Integer>comparingByValue()
            .reversed()
            .thenComparing(Map.Entry.comparingByKey()));
    StringBuilder sb = new StringBuilder("0/").append(numAll).append(" nodes are available");
    for (int i = 0; i < entries.size(); i++) {
      sb.append(i == 0 ? ": " : ", ")
          .append(entries.get(i).getValue())
          .append(' ')
          .append(entries.get(i).getKey());
    }
    return sb.append('.').toString();
  }

  // ---- builder

  public static Builder builder(SchedulerConfiguration config, Registry registry) {
    return new Builder(config, registry);
  }

  /** Wires a scheduler; production and in-memory drivers differ only in what they pass here. */
  public static final class Builder {
    private final SchedulerConfiguration config;
    private final Registry registry0;
    private InstantSource clock = InstantSource.system();
    private PrometheusRegistry registry = new PrometheusRegistry();
    private Parallelizer parallelizer = Parallelizer.sequential();
    private @Nullable KubernetesClient client;
    private Binder binder = (pod, node) -> Status.error("no binder configured");
    private StatusWriter statusWriter = (pod, reason, message) -> {};
    private EventRecorder eventRecorder = EventRecorder.discarding();
    private Executor bindingExecutor = Runnable::run;
    private int maxBindingsInFlight;
    private @Nullable Long seed;
    private SchedulingObserver observer = SchedulingObserver.none();
    private long podInfoCacheSize = 200_000;

    private Builder(SchedulerConfiguration config, Registry registry) {
      this.config = requireNonNull(config);
      this.registry0 = requireNonNull(registry);
    }

    public Builder clock(InstantSource c) {
      this.clock = c;
      return this;
    }

    public Builder metricsRegistry(PrometheusRegistry r) {
      this.registry = r;
      return this;
    }

    public Builder parallelizer(Parallelizer p) {
      this.parallelizer = p;
      return this;
    }

    public Builder client(@Nullable KubernetesClient c) {
      this.client = c;
      return this;
    }

    public Builder binder(Binder b) {
      this.binder = b;
      return this;
    }

    public Builder statusWriter(StatusWriter w) {
      this.statusWriter = w;
      return this;
    }

    public Builder eventRecorder(EventRecorder r) {
      this.eventRecorder = r;
      return this;
    }

    public Builder bindingExecutor(Executor e) {
      this.bindingExecutor = e;
      return this;
    }

    /**
     * At most this many bindings queued or running before the scheduling thread waits for one to
     * finish; 0 (the default) for no limit, as with a binding executor that runs in place.
     */
    public Builder maxBindingsInFlight(int n) {
      checkArgument(n >= 0, "maxBindingsInFlight %s must not be negative", n);
      this.maxBindingsInFlight = n;
      return this;
    }

    /**
     * Breaks score ties with a random generator seeded by {@code seed}, reproducibly; without a
     * seed ties go to the first node in snapshot order.
     */
    public Builder tieBreakSeed(@Nullable Long s) {
      this.seed = s;
      return this;
    }

    public Builder observer(SchedulingObserver o) {
      this.observer = o;
      return this;
    }

    public Builder podInfoCacheSize(long size) {
      this.podInfoCacheSize = size;
      return this;
    }

    /** @throws ConfigException when a profile cannot be built (every error listed) */
    public Scheduler build() {
      return new Scheduler(this);
    }
  }
}
