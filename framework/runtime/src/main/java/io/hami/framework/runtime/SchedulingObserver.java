package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Status;

/**
 * Callbacks on scheduling outcomes, for in-memory drivers, benchmarks and tests. Called on the
 * scheduling thread (attempt results) or a binding thread (binding results); must be fast.
 */
public interface SchedulingObserver {

  /** The scheduling cycle chose {@code nodeName}; binding follows. */
  default void scheduled(Pod pod, String nodeName, long decisionNanos) {}

  /** The attempt failed; {@code message} is what the pod's condition says. */
  default void failed(Pod pod, Status status, String message, long decisionNanos) {}

  /** The binding cycle finished successfully. */
  default void bound(Pod pod, String nodeName) {}

  /** The binding cycle failed; the pod was unreserved, forgotten and requeued. */
  default void bindingFailed(Pod pod, String nodeName, Status status) {}

  static SchedulingObserver none() {
    return new SchedulingObserver() {};
  }
}
