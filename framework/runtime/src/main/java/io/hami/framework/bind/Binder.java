package io.hami.framework.bind;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.Status;

/**
 * Binds a pod to a node, merging {@code metadata} onto the pod in the same write (the API server
 * copies a Binding's annotations and labels onto the pod). Called on a binding thread; may block.
 * Returns success, or an error status describing why the binding did not happen (the pod is then
 * unreserved and retried).
 */
@FunctionalInterface
public interface Binder {

  Status bind(Pod pod, String nodeName, BindingMetadata metadata);

  /** A binder that posts the {@code pods/binding} subresource through {@code client}. */
  static Binder apiBinder(KubernetesClient client, ApiRequestObserver observer) {
    return new ApiBinder(client, observer, ApiRateLimiter.unlimited());
  }

  /** Like {@link #apiBinder(KubernetesClient, ApiRequestObserver)}, rate limited. */
  static Binder apiBinder(
      KubernetesClient client, ApiRequestObserver observer, ApiRateLimiter limiter) {
    return new ApiBinder(client, observer, limiter);
  }
}
