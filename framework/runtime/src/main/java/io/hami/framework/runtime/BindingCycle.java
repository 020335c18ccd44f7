package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.Status;
import io.hami.framework.cache.SchedulerCache;
import io.hami.framework.queue.QueuedPodInfo;
import io.hami.framework.queue.SchedulingQueue;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The binding cycle of an assumed pod: the wait at Permit, PreBind, Bind and PostBind, run on the
 * binding executor. A failure unreserves and forgets the pod and goes to the {@link
 * FailureHandler}; a success confirms the pod in the cache.
 *
 * <p>Concurrency: {@link #start} is called on the scheduling thread, the cycles run on binding
 * threads. The count of bindings in flight is what the scheduling thread waits on in {@link
 * #awaitRoom}.
 */
final class BindingCycle {
  private final SchedulerCache cache;
  private final SchedulingQueue queue;
  private final InstantSource clock;
  private final SchedulerMetrics metrics;
  private final EventRecorder eventRecorder;
  private final SchedulingObserver observer;
  private final Map<String, WaitingPodImpl> waitingPods;
  private final FailureHandler failures;
  private final Executor executor;
  private final int maxInFlight;
  private final Consumer<Throwable> fatal;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Object done = new Object();

  /**
   * @param maxInFlight bindings queued or running before {@link #awaitRoom} waits; 0 for no limit
   */
  BindingCycle(Scheduler scheduler, FailureHandler failures, Executor executor, int maxInFlight) {
    this.cache = scheduler.cache();
    this.queue = scheduler.queue();
    this.clock = scheduler.clock();
    this.metrics = scheduler.metrics();
    this.eventRecorder = scheduler.eventRecorder();
    this.observer = scheduler.observer();
    this.waitingPods = scheduler.waitingPods();
    this.failures = failures;
    this.fatal = scheduler::fatal;
    this.executor = executor;
    this.maxInFlight = maxInFlight;
  }

  /** Binds the placed pod now, or once its Permit wait ends. */
  // The callback handles both outcomes of the wait and hands binding to submit: the dependent
  // future whenComplete returns carries nothing to check.
  @SuppressWarnings("FutureReturnValueIgnored")
  void start(Placement p) {
    WaitingPodImpl w = p.waiting();
    if (w == null) {
      submit(() -> bind(p, Status.success()));
      return;
    }
    w.result()
        .whenComplete(
            (s, ex) -> {
              waitingPods.remove(p.cycle().info().uid());
              Status permitted = ex != null ? Status.error(ex) : s;
              submit(() -> bind(p, permitted));
            });
  }

  /**
   * Holds the scheduling thread while {@code maxInFlight} bindings are queued or running. Without
   * it the thread runs ahead of binding under a backlog, and every pod placed ahead counts against
   * its node in the lock-aware scores, so later pods scatter over ever more nodes (with GPU spread,
   * one fractional pod on each GPU of a node leaves no whole GPU there: at 41% of a 1,000-node
   * cluster's GPUs, 2% of the pods fit nowhere). Pods waiting at Permit hold no room, so a lock
   * held elsewhere for long does not stop pods for other nodes.
   */
  void awaitRoom(Runnable heartbeat) throws InterruptedException {
    if (maxInFlight <= 0) {
      return;
    }
    synchronized (done) {
      while (inFlight.get() >= maxInFlight) {
        done.wait(1000);
        heartbeat.run();
      }
    }
  }

  /** Bindings queued or running now. */
  int inFlight() {
    return inFlight.get();
  }

  private void submit(Runnable binding) {
    inFlight.incrementAndGet();
    try {
      executor.execute(
          () -> {
            try {
              binding.run();
            } catch (Error e) {
              // The pod stays assumed and its plugins reserved: the scheduler must stop.
              fatal.accept(e);
              throw e;
            } finally {
              finished();
            }
          });
    } catch (RuntimeException e) {
      finished();
      throw e;
    }
  }

  private void finished() {
    inFlight.decrementAndGet();
    if (maxInFlight > 0) {
      synchronized (done) {
        done.notifyAll();
      }
    }
  }

  private void bind(Placement p, Status permitted) {
    long start = System.nanoTime();
    PodCycle c = p.cycle();
    FrameworkRuntime fwk = c.fwk();
    Pod pod = c.pod();
    String nodeName = p.node();
    Status s = permitted;
    try {
      if (s.isSuccess()) {
        s = fwk.binding().runPreBind(c.state(), pod, nodeName);
      }
      if (s.isSuccess()) {
        s = fwk.binding().runBind(c.state(), pod, nodeName);
      }
    } catch (RuntimeException e) {
      s = Status.error(e);
    }
    if (!s.isSuccess()) {
      fwk.binding().runUnreserve(c.state(), pod, nodeName);
      cache.forgetPod(pod);
      metrics.binding("error", System.nanoTime() - start);
      observer.bindingFailed(pod, nodeName, s);
      String message = "binding to " + nodeName + " failed: " + s.message();
      Attempt a = Attempt.failedAt(nodeName, s, message);
      a.nomination = ""; // as kube-scheduler: a binding failure clears the nomination
      a.rejectedAtPermit = !permitted.isSuccess();
      a.allNodes = p.allNodes();
      failures.handle(c.info(), a, 0);
      return;
    }
    bound(p, start);
  }

  private void bound(Placement p, long start) {
    PodCycle c = p.cycle();
    QueuedPodInfo info = c.info();
    Pod pod = c.pod();
    cache.finishBinding(pod);
    c.fwk().binding().runPostBind(c.state(), pod, p.node());
    queue.done(info.uid());
    metrics.binding("success", System.nanoTime() - start);
    metrics.podScheduled(
        c.fwk().profileName(),
        Duration.between(info.initialTimestamp(), clock.instant()).toNanos());
    eventRecorder.record(
        pod,
        EventRecorder.Type.NORMAL,
        "Scheduled",
        "Binding",
        "Successfully assigned " + info.key() + " to " + p.node());
    observer.bound(pod, p.node());
  }
}
