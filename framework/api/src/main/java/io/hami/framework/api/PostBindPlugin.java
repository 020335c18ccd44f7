package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Informational hook after a successful Bind, on the binding thread (release node locks, clean up).
 * It cannot fail the pod; exceptions are logged and ignored.
 */
public interface PostBindPlugin extends Plugin {

  void postBind(CycleState state, Pod pod, String nodeName);
}
