package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * A pod as the scheduler accounts for it on a node, with its derived request computed once.
 *
 * @param pod the pod object, not to be mutated
 * @param requests the effective request ({@link Resources#forPod})
 * @param nonZeroRequests the request with scoring defaults ({@link Resources#nonZeroForPod})
 * @param hostPorts the host ports it claims
 * @param assumed whether the scheduler placed it and the API has not confirmed the binding yet
 */
public record PodInfo(
    Pod pod,
    Resources requests,
    Resources nonZeroRequests,
    List<HostPort> hostPorts,
    boolean assumed) {

  public PodInfo {
    requireNonNull(pod, "pod");
    requireNonNull(requests, "requests");
    requireNonNull(nonZeroRequests, "nonZeroRequests");
    hostPorts = List.copyOf(hostPorts);
  }

  /**
   * Derives a pod info from {@code pod}.
   *
   * @throws IllegalArgumentException if a resource quantity cannot be parsed
   */
  public static PodInfo of(Pod pod) {
    return new PodInfo(
        pod, Resources.forPod(pod), Resources.nonZeroForPod(pod), HostPort.forPod(pod), false);
  }

  /** Returns a copy with the assumed flag set to {@code value}. */
  public PodInfo withAssumed(boolean value) {
    return value == assumed ? this : new PodInfo(pod, requests, nonZeroRequests, hostPorts, value);
  }

  /** Returns the pod's UID; assumed and informer copies of a pod share it. */
  public String uid() {
    return pod.getMetadata().getUid();
  }

  /** Returns the pod's priority ({@link #priorityOf}). */
  public int priority() {
    return priorityOf(pod);
  }

  /**
   * Returns {@code spec.priority}, which admission resolves from the pod's PriorityClass; 0 when
   * unset, as kube-scheduler reads it.
   */
  public static int priorityOf(Pod pod) {
    Integer p = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    return p == null ? 0 : p;
  }

  /** Returns {@code namespace/name}. */
  public String key() {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
