package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Writes a pod's {@code PodScheduled=False} condition. Implementations are asynchronous: the
 * scheduling thread never waits on the API.
 */
@FunctionalInterface
public interface StatusWriter {

  /**
   * Writes the condition.
   *
   * @param reason {@code Unschedulable} or {@code SchedulerError}
   * @param message the aggregated message
   */
  void podUnschedulable(Pod pod, String reason, String message);

  /**
   * Like {@link #podUnschedulable(Pod, String, String)}, with annotations about the attempt (from
   * the attempt observers), which an implementation that writes to the API carries in the same
   * request. The default drops them.
   *
   * @param annotations to set on the pod; empty to leave its annotations as they are
   */
  default void podUnschedulable(
      Pod pod, String reason, String message, Map<String, String> annotations) {
    podUnschedulable(pod, reason, message);
  }

  /**
   * Like {@link #podUnschedulable(Pod, String, String, Map)}, also setting the pod's {@code
   * status.nominatedNodeName} in the same request. The default drops the nomination.
   *
   * @param nominatedNodeName the node to write; empty to clear it; null to leave it as it is
   * @return completes with whether the write reached the API: false when it was lost (the API
   *     refused it or did not answer, or too many writes were waiting), which the writer does not
   *     retry, so that the caller writes the condition again on the pod's next failure instead of
   *     taking it as written. The default writes and answers true.
   */
  default CompletionStage<Boolean> podUnschedulable(
      Pod pod,
      String reason,
      String message,
      Map<String, String> annotations,
      @Nullable String nominatedNodeName) {
    podUnschedulable(pod, reason, message, annotations);
    return CompletableFuture.completedFuture(true);
  }

  /**
   * Writes only the pod's {@code status.nominatedNodeName}; empty clears it. The default writes
   * nothing.
   */
  default void nominatedNodeName(Pod pod, String nodeName) {}
}
