package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.api.PostFilterResult;
import io.hami.framework.api.Status;
import io.hami.framework.cache.CacheSnapshot;
import io.hami.framework.cache.SchedulerCache;
import io.hami.framework.queue.Nominator;
import io.hami.framework.queue.QueuedPodInfo;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling cycle of one pod: PreFilter, Filter fanned out over a sample of nodes, PostFilter
 * on failure, PreScore, Score, NormalizeScore, then assume, Reserve and Permit. Any failure after
 * Reserve unreserves and forgets the pod; every failure goes to the {@link FailureHandler}.
 *
 * <p>Concurrency: runs on the single scheduling thread, which alone owns the snapshot.
 */
final class SchedulingCycle {
  private static final Logger log = LoggerFactory.getLogger(SchedulingCycle.class);

  private final CacheSnapshot snapshot;
  private final SchedulerCache cache;
  private final InstantSource clock;
  private final SchedulerMetrics metrics;
  private final SchedulingObserver observer;
  private final Map<String, WaitingPodImpl> waitingPods;
  private final FailureHandler failures;
  private final NodeFilter filter;
  private final NodeScorer scorer;
  private final Nominator nominator;

  SchedulingCycle(Scheduler scheduler, FailureHandler failures, NodeScorer scorer) {
    this.snapshot = scheduler.snapshot();
    this.cache = scheduler.cache();
    this.clock = scheduler.clock();
    this.metrics = scheduler.metrics();
    this.observer = scheduler.observer();
    this.waitingPods = scheduler.waitingPods();
    this.failures = failures;
    this.nominator = scheduler.nominator();
    this.filter = new NodeFilter(scheduler.parallelizer(), nominator);
    this.scorer = scorer;
  }

  /**
   * Schedules the pod against a fresh snapshot; returns where it is assumed, or null when the
   * attempt failed (and the failure was handled).
   */
  @Nullable Placement schedule(FrameworkRuntime fwk, QueuedPodInfo info, boolean sample) {
    long start = System.nanoTime();
    cache.updateSnapshot(snapshot);
    PodCycle c = new PodCycle(fwk, info, new CycleState(), sample, start);
    Attempt attempt = findNode(c);
    String nodeName = attempt.node;
    if (nodeName == null) {
      noNode(c, attempt);
      return null;
    }
    return reserveAndPermit(c, attempt, nodeName);
  }

  private void noNode(PodCycle c, Attempt attempt) {
    FrameworkRuntime fwk = c.fwk();
    Status status = attempt.status;
    if (status.isRejected() && fwk.hasPostFilterPlugins() && attempt.nodeStatuses != null) {
      PostFilterResult r = fwk.runPostFilter(c.state(), c.pod(), attempt.nodeStatuses);
      String nominated = r.nominatedNodeName();
      attempt.nomination = nominated;
      String postFilterMessage = r.status().message();
      if (!postFilterMessage.isEmpty() && !r.status().isSuccess()) {
        // kube-scheduler's FitError: the Filter histogram, then what PostFilter said.
        attempt.message = attempt.message + " " + postFilterMessage + ".";
        attempt.status =
            new Status(status.code(), List.of(attempt.message), status.cause(), status.plugin());
      }
      if (nominated != null && !nominated.isEmpty()) {
        List<String> victims = new ArrayList<>(r.victims().size());
        for (Pod v : r.victims()) {
          victims.add(v.getMetadata().getNamespace() + "/" + v.getMetadata().getName());
        }
        attempt.victims = victims;
        log.info("pod {} nominated to {} victims={}", c.info().key(), nominated, victims);
      }
    }
    failed(c, attempt, status.code() == Code.ERROR ? "error" : "unschedulable");
  }

  private void failed(PodCycle c, Attempt attempt, String result) {
    long nanos = System.nanoTime() - c.startNanos();
    metrics.attempt(result, c.fwk().profileName(), nanos);
    failures.handle(c.info(), attempt, nanos);
  }

  private @Nullable Placement reserveAndPermit(PodCycle c, Attempt attempt, String nodeName) {
    FrameworkRuntime fwk = c.fwk();
    CycleState state = c.state();
    Pod pod = c.pod();
    if (attempt.selection != null) {
      state.write(NodeSelection.KEY, attempt.selection);
    }
    cache.assumePod(pod, nodeName);
    // Assumed: the pod holds its node in the cache now, no longer through a nomination.
    nominator.remove(c.info().uid());
    Status reserved = fwk.binding().runReserve(state, pod, nodeName);
    if (!reserved.isSuccess()) {
      fwk.binding().runUnreserve(state, pod, nodeName);
      cache.forgetPod(pod);
      failed(
          c,
          Attempt.failedAt(nodeName, reserved, reserved.message()),
          reserved.code() == Code.ERROR ? "error" : "unschedulable");
      return null;
    }
    // Registered before Permit runs: a plugin may allow the pod from another thread between its
    // WAIT and the end of Permit (WaitingPodImpl keeps that allow).
    String uid = c.info().uid();
    WaitingPodImpl waiting = new WaitingPodImpl(pod, nodeName);
    waitingPods.put(uid, waiting);
    BindingPoints.PermitOutcome permit = fwk.binding().runPermit(state, pod, nodeName);
    Status permitted = permit.status();
    if (permitted.code() != Code.WAIT) {
      waitingPods.remove(uid);
    }
    if (!permitted.isSuccess() && permitted.code() != Code.WAIT) {
      fwk.binding().runUnreserve(state, pod, nodeName);
      cache.forgetPod(pod);
      failed(c, Attempt.failedAt(nodeName, permitted, permitted.message()), "unschedulable");
      return null;
    }
    WaitingPodImpl w = null;
    if (permitted.code() == Code.WAIT) {
      waiting.settle(permit.waitingPlugins(), clock.instant().plus(permit.timeout()));
      w = waiting;
    }
    long nanos = System.nanoTime() - c.startNanos();
    metrics.attempt("scheduled", fwk.profileName(), nanos);
    observer.scheduled(pod, nodeName, nanos);
    return new Placement(c, nodeName, w, snapshot.nodes().size());
  }

  /** PreFilter, Filter and Score: the node to assume, or why there is none. */
  private Attempt findNode(PodCycle c) {
    Attempt a = new Attempt();
    List<NodeInfo> all = snapshot.nodes();
    int numAll = all.size();
    if (numAll == 0) {
      a.status = Status.unschedulable("no nodes available to schedule pods");
      a.message = "0/0 nodes are available: no nodes available to schedule pods.";
      return a;
    }
    FrameworkRuntime.PreFilterOutcome pre =
        c.fwk().runPreFilter(c.state(), c.pod(), snapshot, c.sample());
    if (!pre.status().isSuccess()) {
      a.status = pre.status();
      a.message =
          pre.status().code() == Code.ERROR
              ? "running PreFilter plugin " + pre.status().plugin() + ": " + pre.status().message()
              : "0/" + numAll + " nodes are available: " + pre.status().message() + ".";
      a.rejectors = FitErrors.plugins(pre.status());
      if (pre.status().isRejected() && c.fwk().hasPostFilterPlugins()) {
        // As kube-scheduler: a PreFilter rejection rejects every node, and PostFilter sees it.
        Map<String, Status> m = new LinkedHashMap<>();
        for (NodeInfo n : all) {
          m.put(n.name(), pre.status());
        }
        a.nodeStatuses = m;
      }
      return a;
    }
    Set<String> allowed = pre.nodeNames();
    List<NodeInfo> candidates = allowed == null ? all : only(all, allowed);
    // Exclusions are by snapshot position: they apply only when the candidates are all nodes.
    NodeFilter.Result r =
        filter.filter(
            c,
            pre.skipFilter(),
            candidates,
            allowed == null ? pre.excluded() : null,
            allowed == null);
    a.evaluated = r.processed;
    try {
      return afterFilter(c, a, r, allowed == null ? 0 : numAll - r.total);
    } finally {
      filter.clear(r);
    }
  }

  private static List<NodeInfo> only(List<NodeInfo> all, Set<String> names) {
    List<NodeInfo> out = new ArrayList<>();
    for (NodeInfo n : all) {
      if (names.contains(n.name())) {
        out.add(n);
      }
    }
    return out;
  }

  /**
   * @param excluded nodes PreFilter left out
   */
  private Attempt afterFilter(PodCycle c, Attempt a, NodeFilter.Result r, int excluded) {
    FrameworkRuntime fwk = c.fwk();
    if (r.pluginNanos != null) {
      fwk.recordFilterSample(r.pluginNanos);
    }
    Status error = r.error;
    metrics.extensionPoint(
        "Filter",
        error != null ? "Error" : "Success",
        fwk.profileName(),
        System.nanoTime() - r.startNanos);
    if (error != null) {
      a.status = error;
      a.message = "running Filter plugin " + error.plugin() + ": " + error.message();
      a.rejectors = FitErrors.plugins(error);
      return a;
    }
    if (r.found == 0) {
      noFit(fwk, a, r, excluded);
      return a;
    }
    List<NodeInfo> feasible = new ArrayList<>(r.found);
    for (int i = 0; i < r.found; i++) {
      feasible.add(r.candidates.get(r.feasible[i]));
    }
    if (feasible.size() == 1) {
      a.node = feasible.get(0).name();
      a.selection = new NodeSelection(a.evaluated, 1, null, List.of());
      return a;
    }
    Status scoreError = scorer.prioritizeAndSelect(c, feasible, a);
    if (scoreError != null) {
      a.node = null;
      a.status = scoreError;
      a.message = "running " + scoreError.plugin() + ": " + scoreError.message();
      a.rejectors = FitErrors.plugins(scoreError);
    }
    return a;
  }

  /**
   * Filter rejected every candidate: the message, the diagnosis and the statuses for PostFilter.
   */
  private void noFit(FrameworkRuntime fwk, Attempt a, NodeFilter.Result r, int excluded) {
    int numAll = snapshot.nodes().size();
    a.message = FitErrors.message(numAll, r.statuses, r.total, excluded);
    a.diagnosis =
        AttemptRecords.filterFailure(
            clock.instant(),
            numAll,
            r.statuses,
            r.candidates,
            excluded,
            r.candidates == snapshot.nodes() ? snapshot.nameRanks() : null);
    a.rejectors = FitErrors.rejectors(r.statuses, r.total);
    a.status = new Status(Code.UNSCHEDULABLE, List.of(a.message), null, null);
    if (fwk.hasPostFilterPlugins()) {
      Map<String, Status> m = new LinkedHashMap<>();
      for (int i = 0; i < r.total; i++) {
        if (r.statuses[i] != null) {
          m.put(r.candidates.get(i).name(), r.statuses[i]);
        }
      }
      a.nodeStatuses = m;
    }
  }
}
