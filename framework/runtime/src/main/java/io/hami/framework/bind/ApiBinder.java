package io.hami.framework.bind;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.Status;
import io.hami.kube.Bindings;

/**
 * Posts {@code pods/binding}: the API server sets {@code spec.nodeName} and merges the Binding's
 * annotations (and labels, from 1.35) onto the pod in one write.
 */
final class ApiBinder implements Binder {
  private final KubernetesClient client;
  private final ApiRequestObserver observer;
  private final ApiRateLimiter limiter;

  ApiBinder(KubernetesClient client, ApiRequestObserver observer, ApiRateLimiter limiter) {
    this.client = client;
    this.observer = observer;
    this.limiter = limiter;
  }

  @Override
  public Status bind(Pod pod, String nodeName, BindingMetadata metadata) {
    String ns = pod.getMetadata().getNamespace();
    Binding binding = Bindings.of(pod, nodeName, metadata.annotations(), metadata.labels());
    try {
      limiter.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Status.error("interrupted while waiting for the API rate limiter");
    }
    try {
      client.bindings().inNamespace(ns).resource(binding).create();
      observer.request("create", "pods/binding", "ok");
      return Status.success();
    } catch (KubernetesClientException e) {
      observer.request("create", "pods/binding", String.valueOf(e.getCode()));
      return Status.error(
          new IllegalStateException(
              "binding "
                  + ns
                  + "/"
                  + pod.getMetadata().getName()
                  + " to "
                  + nodeName
                  + " failed: "
                  + e.getMessage(),
              e));
    }
  }
}
