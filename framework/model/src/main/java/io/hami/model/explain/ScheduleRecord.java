package io.hami.model.explain;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the scheduler recorded about a pod's last attempt: {@link Failed} next to the pod's {@code
 * PodScheduled=False} condition, or {@link Scheduled} with the placement. Encoded by {@link
 * ScheduleRecordCodec}.
 */
public sealed interface ScheduleRecord permits ScheduleRecord.Failed, ScheduleRecord.Scheduled {

  /** When the attempt ended (second precision on the wire). */
  Instant time();

  /** Nodes rejected for one reason. */
  record ReasonCount(String reason, int nodes) {
    public ReasonCount {
      requireNonNull(reason, "reason");
    }
  }

  /** One node's rejection reasons. */
  record NodeReasons(String node, List<String> reasons) {
    public NodeReasons {
      requireNonNull(node, "node");
      reasons = List.copyOf(reasons);
    }
  }

  /** One candidate node's total score. */
  record NodeScore(String node, long score) {
    public NodeScore {
      requireNonNull(node, "node");
    }
  }

  /**
   * A failed attempt.
   *
   * @param reason {@code Unschedulable} or {@code SchedulerError}, as in the pod's condition
   * @param node the node chosen before a later step (Reserve, Permit, PreBind, Bind) failed; null
   *     when no node was chosen
   * @param nodes nodes in the cluster at the attempt
   * @param reasons nodes rejected per reason, most frequent first
   * @param omittedReasons how many further reasons were left out to keep the record small
   * @param closest the rejected nodes with the fewest reasons, nearest to fitting first
   * @param preemption the node preemption nominated the pod to and the pods it evicted; null when
   *     it did not run or found no room
   */
  record Failed(
      Instant time,
      String reason,
      @Nullable String node,
      int nodes,
      List<ReasonCount> reasons,
      int omittedReasons,
      List<NodeReasons> closest,
      @Nullable Preemption preemption)
      implements ScheduleRecord {
    public Failed {
      requireNonNull(time, "time");
      requireNonNull(reason, "reason");
      reasons = List.copyOf(reasons);
      closest = List.copyOf(closest);
    }

    /** A failed attempt in which preemption made no room. */
    public Failed(
        Instant time,
        String reason,
        @Nullable String node,
        int nodes,
        List<ReasonCount> reasons,
        int omittedReasons,
        List<NodeReasons> closest) {
      this(time, reason, node, nodes, reasons, omittedReasons, closest, null);
    }
  }

  /**
   * What preemption did for the pod.
   *
   * @param nominatedNode the node whose room is held for the pod
   * @param victims the evicted pods as {@code namespace/name}
   * @param omittedVictims how many further victims were left out to keep the record small
   */
  record Preemption(String nominatedNode, List<String> victims, int omittedVictims) {
    public Preemption {
      requireNonNull(nominatedNode, "nominatedNode");
      victims = List.copyOf(victims);
    }
  }

  /**
   * A placement.
   *
   * @param node the chosen node
   * @param score the chosen node's total score; null when it was the only feasible node and no
   *     scoring ran
   * @param nodePolicy the node policy the pod was placed under ({@code binpack}, {@code spread})
   * @param gpuPolicy the GPU policy ({@code spread}, {@code binpack}, a chain, ...)
   * @param feasible nodes that passed Filter (0 when unknown)
   * @param evaluated nodes Filter ran on (0 when unknown)
   * @param top the best-scored candidates, highest first
   */
  record Scheduled(
      Instant time,
      String node,
      @Nullable Long score,
      String nodePolicy,
      String gpuPolicy,
      int feasible,
      int evaluated,
      List<NodeScore> top)
      implements ScheduleRecord {
    public Scheduled {
      requireNonNull(time, "time");
      requireNonNull(node, "node");
      requireNonNull(nodePolicy, "nodePolicy");
      requireNonNull(gpuPolicy, "gpuPolicy");
      top = List.copyOf(top);
    }
  }
}
