package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Binds the pod to its node, on a binding thread. Bind plugins are tried in order until one does
 * not return {@link Code#SKIP}.
 *
 * <p>Allowed codes: {@link Code#SUCCESS} (bound); {@link Code#SKIP} (not this plugin's pod); {@link
 * Code#ERROR} or a rejection aborts the binding like a PreBind failure.
 */
public interface BindPlugin extends Plugin {

  Status bind(CycleState state, Pod pod, String nodeName);
}
