package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.hami.framework.api.AttemptObserver;
import io.hami.framework.api.Code;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.FailedAttempt;
import io.hami.framework.api.FailedAttempt.Diagnosis;
import io.hami.framework.api.Snapshot;
import io.hami.framework.queue.Nominator;
import io.hami.framework.queue.QueuedPodInfo;
import io.hami.framework.queue.SchedulingQueue;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Handles a failed attempt: requeues the pod and, when the message changed, writes its {@code
 * PodScheduled=False} condition, the pod's nomination (in the nominator at once, in its status with
 * the condition), the annotations the profile's {@link AttemptObserver}s ask for (in the same
 * request, so as fresh as the message and at no extra cost) and a Warning Event. A write that is
 * lost (the API down longer than the client retries) is written again at the next failure, also
 * when the message is the same.
 *
 * <p>Concurrency: called on the scheduling thread and on binding threads. Observers are registered
 * while the profiles are built, before any attempt.
 */
final class FailureHandler {
  private final SchedulingQueue queue;
  private final Snapshot snapshot;
  private final InstantSource clock;
  private final StatusWriter statusWriter;
  private final EventRecorder eventRecorder;
  private final SchedulingObserver observer;
  private final Map<String, List<AttemptObserver>> attemptObservers;
  private final Nominator nominator;

  FailureHandler(
      Scheduler scheduler,
      StatusWriter statusWriter,
      Map<String, List<AttemptObserver>> attemptObservers) {
    this.queue = scheduler.queue();
    this.snapshot = scheduler.snapshot();
    this.clock = scheduler.clock();
    this.eventRecorder = scheduler.eventRecorder();
    this.observer = scheduler.observer();
    this.statusWriter = statusWriter;
    this.nominator = scheduler.nominator();
    this.attemptObservers = attemptObservers;
  }

  /**
   * @param nanos how long the scheduling cycle ran (0 for a binding failure)
   */
  void handle(QueuedPodInfo info, Attempt a, long nanos) {
    Pod pod = info.pod();
    boolean unchanged =
        a.message.equals(info.lastFailureMessage()) || conditionSays(pod, a.message);
    String reason = a.status.code() == Code.ERROR ? "SchedulerError" : "Unschedulable";
    Map<String, String> annotations = unchanged ? Map.of() : annotations(pod, reason, a);
    // Before the requeue: the echo of this write must find the pod knowing its own keys.
    info.markOwnAnnotations(annotations.keySet());
    if (a.rejectedAtPermit) {
      queue.requeueAfterPermit(info, a.status, a.rejectors);
    } else {
      queue.requeue(info, a.status, a.rejectors);
    }
    String nominationToWrite = nominate(pod, a.nomination);
    observer.failed(pod, a.status, a.message, nanos);
    if (unchanged) {
      if (nominationToWrite != null) {
        statusWriter.nominatedNodeName(pod, nominationToWrite);
      }
      return;
    }
    info.setLastFailureMessage(a.message);
    String written = a.message;
    var unused =
        statusWriter
            .podUnschedulable(pod, reason, written, annotations, nominationToWrite)
            .thenAccept(
                ok -> {
                  if (!ok) {
                    // Not on the pod: the next failure must write it, even with the same message.
                    info.forgetFailureMessage(written);
                  }
                });
    eventRecorder.record(
        pod, EventRecorder.Type.WARNING, "FailedScheduling", "Scheduling", a.message);
  }

  /**
   * Applies the attempt's nomination to the nominator, before the next cycle can run (the status
   * write that also reports it arrives later); returns the {@code status.nominatedNodeName} to
   * write, or null when the pod's status already says it.
   */
  private @Nullable String nominate(Pod pod, @Nullable String nomination) {
    String uid = pod.getMetadata().getUid();
    String current = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    current = current == null ? "" : current;
    if (nomination == null) {
      // Left as it is: a nomination held here stays, else the pod's status says.
      if (nominator.nominatedNode(uid) == null) {
        nominator.addFromStatus(pod);
      }
      return null;
    }
    if (nomination.isEmpty()) {
      nominator.remove(uid);
    } else {
      nominator.add(pod, nomination);
    }
    return nomination.equals(current) ? null : nomination;
  }

  private Map<String, String> annotations(Pod pod, String reason, Attempt a) {
    List<AttemptObserver> observers = attemptObservers.get(pod.getSpec().getSchedulerName());
    if (observers == null || observers.isEmpty()) {
      return Map.of();
    }
    FailedAttempt.Preemption preemption =
        a.nomination == null || a.nomination.isEmpty()
            ? null
            : new FailedAttempt.Preemption(a.nomination, a.victims);
    FailedAttempt attempt =
        new FailedAttempt(pod, a.status, a.message, diagnosis(reason, a), preemption);
    if (observers.size() == 1) {
      return observers.get(0).failed(attempt);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (AttemptObserver o : observers) {
      out.putAll(o.failed(attempt));
    }
    return out;
  }

  /** The Filter failure's diagnosis, or one derived from the status for any other failure. */
  private Diagnosis diagnosis(String reason, Attempt a) {
    if (a.diagnosis != null) {
      return a.diagnosis;
    }
    String why = a.status.message().isEmpty() ? a.message : a.status.message();
    int numAll = a.allNodes >= 0 ? a.allNodes : snapshot.nodes().size();
    return AttemptRecords.failure(
        clock.instant(), reason, a.node, numAll, why, a.node == null ? numAll : 1);
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
}
