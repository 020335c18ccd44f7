package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * The last step of the scheduling cycle, on the scheduling thread: approve the pod, reject it, or
 * make it wait (gang scheduling). Waiting happens at the start of the binding cycle, off the
 * scheduling thread; another party releases it through {@link FrameworkHandle#waitingPod}.
 *
 * <p>Allowed codes: {@link Code#SUCCESS}, {@link Code#WAIT} with a timeout, a rejection, or {@link
 * Code#ERROR}. A rejection, an error or a timeout unreserves the pod.
 */
public interface PermitPlugin extends Plugin {

  PermitResult permit(CycleState state, Pod pod, String nodeName);
}
