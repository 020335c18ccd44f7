package io.hami.framework.local;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Status;
import io.hami.framework.runtime.SchedulingObserver;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Each pod's outcome in an in-memory cluster, kept by observing the scheduler; every call is then
 * passed on to the user's observer.
 */
final class PodOutcomes implements SchedulingObserver {
  private final Map<String, PodOutcome> outcomes = new LinkedHashMap<>();
  private final SchedulingObserver user;

  PodOutcomes(SchedulingObserver user) {
    this.user = user;
  }

  @Override
  public void scheduled(Pod pod, String nodeName, long decisionNanos) {
    String key = PodStore.key(pod);
    outcomes.put(key, new PodOutcome(key, null, null, attempts(key) + 1, decisionNanos));
    user.scheduled(pod, nodeName, decisionNanos);
  }

  @Override
  public void failed(Pod pod, Status status, String message, long decisionNanos) {
    String key = PodStore.key(pod);
    outcomes.put(key, new PodOutcome(key, null, message, attempts(key) + 1, decisionNanos));
    user.failed(pod, status, message, decisionNanos);
  }

  @Override
  public void bound(Pod pod, String nodeName) {
    String key = PodStore.key(pod);
    PodOutcome o = outcomes.get(key);
    outcomes.put(
        key, new PodOutcome(key, nodeName, null, attempts(key), o == null ? 0 : o.decisionNanos()));
    user.bound(pod, nodeName);
  }

  @Override
  public void bindingFailed(Pod pod, String nodeName, Status status) {
    user.bindingFailed(pod, nodeName, status);
  }

  @Nullable PodOutcome get(String key) {
    return outcomes.get(key);
  }

  /** Every pod's outcome, in the order pods were first attempted. */
  Map<String, PodOutcome> all() {
    return Collections.unmodifiableMap(outcomes);
  }

  void remove(String key) {
    outcomes.remove(key);
  }

  private int attempts(String key) {
    PodOutcome o = outcomes.get(key);
    return o == null ? 0 : o.attempts();
  }
}
