package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.AttemptObserver;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.QueuedPod;
import io.hami.framework.api.Status;
import io.hami.framework.bind.ApiRateLimiter;
import io.hami.framework.bind.Binder;
import io.hami.framework.bind.ObjectWriter;
import io.hami.framework.bind.PodEvictor;
import io.hami.framework.cache.CacheSnapshot;
import io.hami.framework.cache.SchedulerCache;
import io.hami.framework.config.ConfigException;
import io.hami.framework.config.ProfileConfig;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.queue.Nominator;
import io.hami.framework.queue.QueuedPodInfo;
import io.hami.framework.queue.SchedulingQueue;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling loop: pops one pod at a time and runs its {@link SchedulingCycle}, which assumes
 * the pod in the cache, then hands it to the {@link BindingCycle} on the binding executor. Failed
 * attempts go to the {@link FailureHandler}; informer events reach the cache and queue through the
 * {@link ClusterEventHandler}.
 *
 * <p>Concurrency: {@link #scheduleOne} runs on a single scheduling thread, which alone owns the
 * snapshot. Binding cycles run on the binding executor. {@link #tick} runs the periodic work
 * (backoff flush, leftover flush, Permit timeouts, assumed-pod expiry) from a timer or an in-memory
 * driver.
 */
public final class Scheduler {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  private static final int PLUGIN_SAMPLE_EVERY = 10;

  private final SchedulerConfiguration config;
  private final InstantSource clock;
  private final SchedulerMetrics metrics;
  private final Parallelizer parallelizer;
  private final PodInfoCache podInfos;
  private final SchedulerCache cache;
  private final CacheSnapshot snapshot = new CacheSnapshot();
  private final ClusterObjects objects = new ClusterObjects();
  private final Map<String, FrameworkRuntime> profiles = new LinkedHashMap<>();
  private final @Nullable KubernetesClient client;
  private final Binder binder;
  private final ObjectWriter objectWriter;
  private final PodEvictor evictor;
  private final StatusWriter statusWriter;
  private final Nominator nominator;
  private final EventRecorder eventRecorder;
  private final SchedulingObserver observer;
  private final Map<String, WaitingPodImpl> waitingPods = new ConcurrentHashMap<>();
  private final Map<String, List<AttemptObserver>> attemptObservers = new ConcurrentHashMap<>();
  // Plugins are created before the queue and the event handler exist; they reach them lazily.
  private volatile @Nullable SchedulingQueue queue;
  private volatile @Nullable ClusterEventHandler eventHandler;
  private final List<ClusterStateListener> pendingListeners = new ArrayList<>();
  private final SchedulingCycle schedulingCycle;
  private final BindingCycle bindingCycle;
  private long cycles;
  private Instant lastLeftoverFlush;
  private volatile boolean running;
  // Written by the loop thread on every turn, read by the health check.
  private volatile Instant heartbeat;
  private final List<Consumer<Throwable>> fatalListeners = new CopyOnWriteArrayList<>();

  Scheduler(SchedulerBuilder b) {
    this.config = b.config;
    this.clock = b.clock;
    this.metrics = new SchedulerMetrics(b.metricsRegistry);
    this.parallelizer = b.parallelizer;
    this.podInfos = new PodInfoCache(b.podInfoCacheSize);
    this.cache = new SchedulerCache(clock, config.assumedPodTtl(), podInfos::get);
    this.client = b.client;
    this.binder = b.binder;
    if (b.objectWriter != null) {
      this.objectWriter = b.objectWriter;
    } else {
      this.objectWriter = client != null ? ObjectWriter.api(client) : ObjectWriter.none();
    }
    if (b.evictor != null) {
      this.evictor = b.evictor;
    } else {
      this.evictor =
          client != null
              ? PodEvictor.api(client, (v, r, o) -> {}, ApiRateLimiter.unlimited(), clock)
              : PodEvictor.none();
    }
    this.statusWriter = b.statusWriter;
    this.nominator = new Nominator(podInfos::get);
    this.eventRecorder = b.eventRecorder;
    this.observer = b.observer;
    this.lastLeftoverFlush = clock.instant();
    this.heartbeat = lastLeftoverFlush;
    buildProfiles(b.plugins);
    SchedulingQueue q = newQueue();
    this.queue = q;
    this.eventHandler = newEventHandler(q);
    FailureHandler failures = new FailureHandler(this, b.statusWriter, attemptObservers);
    NodeScorer scorer =
        new NodeScorer(parallelizer, metrics, b.seed == null ? null : new Random(b.seed));
    this.schedulingCycle = new SchedulingCycle(this, failures, scorer);
    this.bindingCycle = new BindingCycle(this, failures, b.bindingExecutor, b.maxBindingsInFlight);
    registerGauges();
  }

  /** Wires a scheduler for {@code config} from the plugins in {@code registry}. */
  public static SchedulerBuilder builder(SchedulerConfiguration config, Registry registry) {
    return new SchedulerBuilder(config, registry);
  }

  /**
   * @throws ConfigException listing every profile error
   */
  private void buildProfiles(Registry registry) {
    FieldErrors errors = FieldErrors.at("");
    for (int i = 0; i < config.profiles().size(); i++) {
      ProfileConfig p = config.profiles().get(i);
      FrameworkRuntime fwk =
          FrameworkRuntime.build(
              p,
              config.percentageOfNodesToScore(),
              registry,
              new DefaultFrameworkHandle(p.schedulerName(), this),
              metrics,
              errors.child("profiles[" + i + "]"));
      if (fwk != null) {
        profiles.put(p.schedulerName(), fwk);
      }
    }
    checkOneQueueSort(errors);
    if (!errors.isEmpty()) {
      close();
      throw new ConfigException("scheduler configuration", errors.messages());
    }
  }

  private void checkOneQueueSort(FieldErrors errors) {
    String sortName = null;
    for (int i = 0; i < config.profiles().size(); i++) {
      FrameworkRuntime fwk = profiles.get(config.profiles().get(i).schedulerName());
      if (fwk == null) {
        continue;
      }
      if (sortName == null) {
        sortName = fwk.queueSort().name();
      } else if (!sortName.equals(fwk.queueSort().name())) {
        errors
            .child("profiles[" + i + "]")
            .invalid(
                "plugins.queueSort",
                fwk.queueSort().name(),
                "all profiles must use the same QueueSort plugin (" + sortName + ")");
      }
    }
  }

  private SchedulingQueue newQueue() {
    FrameworkRuntime first = profiles.values().iterator().next();
    Comparator<QueuedPod> sort = first.queueSort()::compare;
    Map<String, List<ClusterEventWithHint>> regs = new HashMap<>();
    for (FrameworkRuntime f : profiles.values()) {
      regs.putAll(f.eventRegistrations());
    }
    return new SchedulingQueue(sort, this::preEnqueuePlugins, regs, clock, config.queueTimeouts());
  }

  private ClusterEventHandler newEventHandler(SchedulingQueue q) {
    ClusterEventHandler h =
        new ClusterEventHandler(
            cache,
            q,
            pod -> profiles.containsKey(pod.getSpec().getSchedulerName()),
            metrics,
            objects);
    h.addListener(
        new ClusterStateListener() {
          @Override
          public void onPodDelete(Pod pod) {
            podInfos.invalidate(pod.getMetadata().getUid());
          }
        });
    h.addListener(nominatorFeed());
    h.addListener(waitingPodsFeed());
    for (ClusterStateListener l : pendingListeners) {
      h.addListener(l);
    }
    pendingListeners.clear();
    return h;
  }

  /**
   * Rejects pods waiting at Permit that can no longer bind, as kube-scheduler does on delete: a
   * deleted pod, and every pod waiting for a node that was deleted. Their binding cycles then
   * unreserve (which also takes them off the node lock's waiters) instead of binding later.
   */
  private ClusterStateListener waitingPodsFeed() {
    return new ClusterStateListener() {
      @Override
      public void onPodDelete(Pod pod) {
        WaitingPodImpl w = waitingPods.get(pod.getMetadata().getUid());
        if (w != null) {
          w.reject("removed");
        }
      }

      @Override
      public void onNodeDelete(Node node) {
        String name = node.getMetadata().getName();
        for (WaitingPodImpl w : waitingPods.values()) {
          if (w.nodeName().equals(name)) {
            w.reject("node " + name + " was deleted");
          }
        }
      }
    };
  }

  /**
   * Keeps the nominator in step with the informer: a pending pod of ours is nominated where its
   * status says; binding, terminating or deleting it ends the nomination.
   */
  private ClusterStateListener nominatorFeed() {
    return new ClusterStateListener() {
      @Override
      public void onPodAdd(Pod pod) {
        if (pending(pod)) {
          nominator.addFromStatus(pod);
        }
      }

      @Override
      public void onPodUpdate(Pod oldPod, Pod newPod) {
        if (pending(newPod)) {
          nominator.update(oldPod, newPod);
        } else {
          nominator.remove(newPod.getMetadata().getUid());
        }
      }

      @Override
      public void onPodDelete(Pod pod) {
        nominator.remove(pod.getMetadata().getUid());
      }

      private boolean pending(Pod pod) {
        return !ClusterEventHandler.isAssigned(pod)
            && !ClusterEventHandler.isTerminal(pod)
            && !ClusterEventHandler.isDeleting(pod)
            && profiles.containsKey(pod.getSpec().getSchedulerName());
      }
    };
  }

  private List<PreEnqueuePlugin> preEnqueuePlugins(Pod pod) {
    FrameworkRuntime f = profiles.get(pod.getSpec().getSchedulerName());
    return f == null ? List.of() : f.preEnqueuePlugins();
  }

  private void registerGauges() {
    SchedulingQueue q = queue();
    metrics.gauge(
        "hami_scheduler_pending_pods",
        "Pods waiting in each sub-queue.",
        new String[] {"queue"},
        cb -> {
          cb.call(q.activeSize(), "active");
          cb.call(q.backoffSize(), "backoff");
          cb.call(q.unschedulableSize(), "unschedulable");
          cb.call(q.inFlightSize(), "in_flight");
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
          cb.call((double) s.hitCount(), "hit");
          cb.call((double) s.missCount(), "miss");
        });
  }

  // ---- accessors used by the handle, the cycles, drivers and tests

  public SchedulingQueue queue() {
    SchedulingQueue q = queue;
    if (q == null) {
      throw new IllegalStateException("the queue is not ready while plugins are being created");
    }
    return q;
  }

  public SchedulerCache cache() {
    return cache;
  }

  public ClusterEventHandler eventHandler() {
    ClusterEventHandler h = eventHandler;
    if (h == null) {
      throw new IllegalStateException(
          "the event handler is not ready while plugins are being created");
    }
    return h;
  }

  void addListener(ClusterStateListener l) {
    ClusterEventHandler h = eventHandler;
    if (h == null) {
      pendingListeners.add(l);
    } else {
      h.addListener(l);
    }
  }

  void addAttemptObserver(String profile, AttemptObserver o) {
    attemptObservers.computeIfAbsent(profile, k -> new CopyOnWriteArrayList<>()).add(o);
  }

  CacheSnapshot snapshot() {
    return snapshot;
  }

  /** The non-node, non-pod objects plugins read, and which kinds they asked for. */
  public ClusterObjects objects() {
    return objects;
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

  ObjectWriter objectWriter() {
    return objectWriter;
  }

  PodEvictor evictor() {
    return evictor;
  }

  StatusWriter statusWriter() {
    return statusWriter;
  }

  /** The pods nominated to nodes by preemption or by their status. */
  public Nominator nominator() {
    return nominator;
  }

  /** The profile of {@code schedulerName}, or null. */
  @Nullable FrameworkRuntime profile(String schedulerName) {
    return profiles.get(schedulerName);
  }

  SchedulingObserver observer() {
    return observer;
  }

  Map<String, WaitingPodImpl> waitingPods() {
    return waitingPods;
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

  /**
   * Closes every profile's {@link AutoCloseable} plugins, the last profile first and each in
   * reverse order of creation. Call it once the loop and the binding executor stopped; safe to call
   * twice.
   */
  public void close() {
    List<FrameworkRuntime> all = new ArrayList<>(profiles.values());
    for (int i = all.size() - 1; i >= 0; i--) {
      all.get(i).close();
    }
  }

  // ---- periodic work

  /**
   * Periodic work: moves pods whose backoff expired, retries pods left unschedulable too long
   * (checked every 30 s), rejects Permit waits past their deadline, expires assumed pods.
   */
  public void tick() {
    SchedulingQueue q = queue();
    q.flushBackoffCompleted();
    Instant now = clock.instant();
    if (!now.isBefore(lastLeftoverFlush.plusSeconds(30))) {
      lastLeftoverFlush = now;
      q.flushUnschedulableLeftover();
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

  // ---- the loop

  /** Pops and schedules one pod if the active queue has one; returns whether it did. */
  public boolean scheduleNext() {
    QueuedPodInfo info = queue().tryPop();
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

  /**
   * When the loop last turned: it turns at least once a second while it waits for pods or for room
   * in binding, so a stale heartbeat means a cycle is stuck.
   */
  Instant heartbeat() {
    return heartbeat;
  }

  /**
   * Calls {@code listener} with an {@link Error} raised on the scheduling thread or a binding
   * thread: the scheduler cannot be trusted after it, and its owner must stop it.
   */
  void onFatal(Consumer<Throwable> listener) {
    fatalListeners.add(listener);
  }

  /** Reports an {@link Error} that ended the loop or a binding. */
  void fatal(Throwable t) {
    log.error("fatal error in the scheduler", t);
    for (Consumer<Throwable> l : fatalListeners) {
      try {
        l.accept(t);
      } catch (RuntimeException e) {
        log.error("fatal error listener failed", e);
      }
    }
  }

  /**
   * Runs the loop on the calling thread until interrupted or the queue is closed. A {@link
   * RuntimeException} fails only the pod's attempt; an {@link Error} is reported to the {@link
   * #onFatal} listeners and ends the loop.
   */
  public void run() {
    running = true;
    heartbeat = clock.instant();
    try {
      runLoop();
    } catch (Error e) {
      fatal(e);
      throw e;
    } finally {
      running = false;
    }
  }

  private void runLoop() {
    SchedulingQueue q = queue();
    while (!Thread.currentThread().isInterrupted()) {
      heartbeat = clock.instant();
      QueuedPodInfo info;
      try {
        bindingCycle.awaitRoom(() -> heartbeat = clock.instant());
        info = q.pop(Duration.ofSeconds(1));
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
          q.requeue(info, Status.error(e), List.of());
        }
      }
    }
  }

  /** Bindings queued or running now. */
  public int bindingsInFlight() {
    return bindingCycle.inFlight();
  }

  /** Schedules one popped pod, then starts its binding. Runs on the scheduling thread. */
  public void scheduleOne(QueuedPodInfo info) {
    Pod pod = info.pod();
    FrameworkRuntime fwk = profiles.get(pod.getSpec().getSchedulerName());
    if (fwk == null) {
      log.warn(
          "no profile for pod {} (schedulerName {})", info.key(), pod.getSpec().getSchedulerName());
      queue().done(info.uid());
      return;
    }
    if (pod.getMetadata().getDeletionTimestamp() != null || cache.containsPod(info.uid())) {
      queue().done(info.uid());
      return;
    }
    boolean sample = (cycles++ % PLUGIN_SAMPLE_EVERY) == 0;
    Placement placed = schedulingCycle.schedule(fwk, info, sample);
    if (placed != null) {
      bindingCycle.start(placed);
    }
  }
}
