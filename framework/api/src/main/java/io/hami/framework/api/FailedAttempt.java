package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A scheduling attempt that failed, as handed to {@link AttemptObserver}s: the pod, the status and
 * message of its {@code PodScheduled=False} condition, and a diagnosis of which nodes were rejected
 * and why, and what preemption did, if it ran and made room.
 *
 * @param status the failing status ({@link Code#ERROR} for a scheduler error)
 * @param message the condition's aggregated message
 * @param preemption the node PostFilter nominated and its victims; null when it nominated none
 */
public record FailedAttempt(
    Pod pod, Status status, String message, Diagnosis diagnosis, @Nullable Preemption preemption) {
  public FailedAttempt {
    requireNonNull(pod, "pod");
    requireNonNull(status, "status");
    requireNonNull(message, "message");
    requireNonNull(diagnosis, "diagnosis");
  }

  /** An attempt without preemption. */
  public FailedAttempt(Pod pod, Status status, String message, Diagnosis diagnosis) {
    this(pod, status, message, diagnosis, null);
  }

  /**
   * What PostFilter (preemption) did in the attempt: the node it nominated the pod to and the pods
   * it evicted there.
   *
   * @param nominatedNode the node the pod is nominated to
   * @param victims the evicted pods as {@code namespace/name}, most important first
   */
  public record Preemption(String nominatedNode, List<String> victims) {
    public Preemption {
      requireNonNull(nominatedNode, "nominatedNode");
      victims = List.copyOf(victims);
    }
  }

  /**
   * Which nodes the attempt rejected, and why.
   *
   * @param time when the attempt ended
   * @param reason {@code Unschedulable} or {@code SchedulerError}, as in the pod's condition
   * @param node the node chosen before a later step (Reserve, Permit, PreBind, Bind) failed; null
   *     when no node was chosen
   * @param nodes nodes in the cluster at the attempt
   * @param reasons nodes rejected per reason, most frequent first
   * @param closest the rejected nodes with the fewest reasons, nearest to fitting first
   */
  public record Diagnosis(
      Instant time,
      String reason,
      @Nullable String node,
      int nodes,
      List<ReasonCount> reasons,
      List<NodeReasons> closest) {
    public Diagnosis {
      requireNonNull(time, "time");
      requireNonNull(reason, "reason");
      reasons = List.copyOf(reasons);
      closest = List.copyOf(closest);
    }
  }

  /** Nodes rejected for one reason. */
  public record ReasonCount(String reason, int nodes) {
    public ReasonCount {
      requireNonNull(reason, "reason");
    }
  }

  /** One node's rejection reasons. */
  public record NodeReasons(String node, List<String> reasons) {
    public NodeReasons {
      requireNonNull(node, "node");
      reasons = List.copyOf(reasons);
    }
  }
}
