package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Runs in the binding cycle, on a binding thread, before Bind: the place for API writes the binding
 * depends on (pod annotations, node locks). It may block on the API.
 *
 * <p>Allowed codes: {@link Code#SUCCESS}, {@link Code#SKIP} (nothing to do); a rejection or {@link
 * Code#ERROR} aborts the binding, unreserves and forgets the pod and sends it back to the queue.
 */
public interface PreBindPlugin extends Plugin {

  Status preBind(CycleState state, Pod pod, String nodeName);
}
