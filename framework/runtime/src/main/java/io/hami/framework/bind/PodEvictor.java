package io.hami.framework.bind;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.Status;
import java.time.InstantSource;

/**
 * Evicts a preemption victim: marks it {@code DisruptionTarget=True} with reason {@code
 * PreemptionByScheduler} and deletes it gracefully. Called on the scheduling thread; may block.
 * Returns success (also when the victim is already gone) or an error status.
 */
@FunctionalInterface
public interface PodEvictor {

  /** The {@code DisruptionTarget} condition's reason. */
  String REASON = "PreemptionByScheduler";

  /**
   * Evicts {@code victim}.
   *
   * @param message the condition's message ({@code "<scheduler>: preempting to accommodate a higher
   *     priority pod"})
   */
  Status evict(Pod victim, String message);

  /** An evictor that patches {@code pods/status} and deletes the pod through {@code client}. */
  static PodEvictor api(
      KubernetesClient client,
      ApiRequestObserver observer,
      ApiRateLimiter limiter,
      InstantSource clock) {
    return new ApiPodEvictor(client, observer, limiter, clock);
  }

  /** An evictor for schedulers without a cluster: every eviction fails and says so. */
  static PodEvictor none() {
    return (victim, message) -> Status.error("this scheduler cannot evict pods");
  }
}
