package io.hami.framework.bind;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.Status;
import io.hami.kube.Bindings;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts {@code pods/binding}: the API server sets {@code spec.nodeName} and merges the Binding's
 * annotations (and labels, from 1.35) onto the pod in one write.
 *
 * <p>A binding whose answer is lost (the apiserver or etcd died mid-request, a timeout) may still
 * have been written. Reporting it as failed would unreserve the pod (releasing its node lock and
 * its devices) although it is bound, and the node agent would then serve the next lock holder's
 * devices to it. So after any failure the pod is read back (retrying the read for a while when the
 * API does not answer): when it is the same pod, bound to this node, the binding succeeded.
 */
final class ApiBinder implements Binder {
  private static final Logger log = LoggerFactory.getLogger(ApiBinder.class);

  /** How long a failed binding's outcome is looked for when the API does not answer. */
  static final Duration DEFAULT_VERIFY_TIMEOUT = Duration.ofSeconds(30);

  private static final long VERIFY_RETRY_MILLIS = 500;

  private final KubernetesClient client;
  private final ApiRequestObserver observer;
  private final ApiRateLimiter limiter;
  private final Duration verifyTimeout;

  ApiBinder(KubernetesClient client, ApiRequestObserver observer, ApiRateLimiter limiter) {
    this(client, observer, limiter, DEFAULT_VERIFY_TIMEOUT);
  }

  ApiBinder(
      KubernetesClient client,
      ApiRequestObserver observer,
      ApiRateLimiter limiter,
      Duration verifyTimeout) {
    this.client = client;
    this.observer = observer;
    this.limiter = limiter;
    this.verifyTimeout = verifyTimeout;
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
      if (boundHere(pod, nodeName)) {
        log.info(
            "binding answer lost but the pod is bound pod={}/{} node={} error={}",
            ns,
            pod.getMetadata().getName(),
            nodeName,
            e.getMessage());
        return Status.success();
      }
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

  /**
   * Whether the pod as the API server now has it is this pod (same UID) bound to {@code nodeName}.
   * False when it is not, or when the API gives no answer within the verify timeout.
   */
  private boolean boundHere(Pod pod, String nodeName) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    long deadline = System.nanoTime() + verifyTimeout.toNanos();
    while (true) {
      try {
        Pod now = client.pods().inNamespace(ns).withName(name).get();
        return now != null
            && Objects.equals(now.getMetadata().getUid(), pod.getMetadata().getUid())
            && now.getSpec() != null
            && nodeName.equals(now.getSpec().getNodeName());
      } catch (KubernetesClientException e) {
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(VERIFY_RETRY_MILLIS) > deadline) {
          return false;
        }
        try {
          Thread.sleep(VERIFY_RETRY_MILLIS);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
  }
}
