package io.hami.framework.runtime;

import io.hami.framework.api.FailedAttempt.Diagnosis;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.api.Status;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt came to: the chosen node, or why there was none. Filled by the scheduling cycle
 * and read by the failure handler; confined to one thread at a time.
 */
final class Attempt {
  /**
   * The chosen node; on a failure after the choice (Reserve, Permit, binding), the node it was for.
   */
  @Nullable String node;

  Status status = Status.success();
  String message = "";
  Set<String> rejectors = Set.of();

  /** Per-node Filter statuses for PostFilter; set only when the profile has PostFilter plugins. */
  @Nullable Map<String, Status> nodeStatuses;

  /** Nodes Filter ran on. */
  int evaluated;

  /**
   * The nodes in the attempt's snapshot; -1 to count them when the failure is handled, which only
   * the scheduling thread may do.
   */
  int allNodes = -1;

  @Nullable NodeSelection selection;

  /**
   * What the failure does to the pod's nomination (kube-scheduler's NominatingInfo): null leaves it
   * (a failure after a node was chosen, a PostFilter that changed nothing), empty clears it (any
   * other failure), a node name nominates the pod there (preemption made room).
   */
  @Nullable String nomination = "";

  /** The pods PostFilter evicted for the nomination, as {@code namespace/name}. */
  List<String> victims = List.of();

  /** The Filter failure's diagnosis; null to derive one from the status. */
  @Nullable Diagnosis diagnosis;

  /**
   * The pod had a place and was rejected while it waited at Permit (a gang's timeout or release):
   * the events during its wait do not send it back early.
   */
  boolean rejectedAtPermit;

  /** A failure of a step after {@code node} was chosen. */
  static Attempt failedAt(String node, Status status, String message) {
    Attempt a = new Attempt();
    a.node = node;
    a.status = status;
    a.message = message;
    a.rejectors = FitErrors.plugins(status);
    a.nomination = null;
    return a;
  }
}
