package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * A gate in front of the active queue. Called when a pod is added or updated (on the informer
 * thread) and before it moves back from backoff; it must be fast and must not call the API.
 *
 * <p>Allowed codes: {@link Code#SUCCESS} lets the pod in; a rejection keeps it parked with the
 * unschedulable pods until a registered event of this plugin lets it through; {@link Code#ERROR} is
 * treated as a rejection and logged.
 */
public interface PreEnqueuePlugin extends Plugin {

  Status preEnqueue(Pod pod);
}
