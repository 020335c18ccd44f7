package io.hami.framework.bind;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hami.framework.api.Status;
import io.hami.kube.PatchTargets;
import java.net.HttpURLConnection;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Marks the victim with the {@code DisruptionTarget} condition through a merge patch of {@code
 * pods/status} (its other conditions carried unchanged), then deletes it with its own grace period.
 * A victim that is gone (404) counts as evicted.
 */
final class ApiPodEvictor implements PodEvictor {
  private final KubernetesClient client;
  private final ApiRequestObserver observer;
  private final ApiRateLimiter limiter;
  private final InstantSource clock;

  ApiPodEvictor(
      KubernetesClient client,
      ApiRequestObserver observer,
      ApiRateLimiter limiter,
      InstantSource clock) {
    this.client = client;
    this.observer = observer;
    this.limiter = limiter;
    this.clock = clock;
  }

  @Override
  public Status evict(Pod victim, String message) {
    String key = victim.getMetadata().getNamespace() + "/" + victim.getMetadata().getName();
    try {
      limiter.acquire();
      if (!hasCondition(victim)) {
        String patch =
            Serialization.asJson(
                Map.of("status", Map.of("conditions", conditions(victim, message, clock))));
        try {
          client
              .pods()
              .resource(PatchTargets.pod(victim))
              .subresource("status")
              .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
          observer.request("patch", "pods/status", "ok");
        } catch (KubernetesClientException e) {
          observer.request("patch", "pods/status", String.valueOf(e.getCode()));
          if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
            return Status.success();
          }
          return Status.error(
              new IllegalStateException(
                  "adding DisruptionTarget to victim " + key + " failed: " + e.getMessage(), e));
        }
        limiter.acquire();
      }
      try {
        client.pods().resource(PatchTargets.pod(victim)).delete();
        observer.request("delete", "pods", "ok");
      } catch (KubernetesClientException e) {
        observer.request("delete", "pods", String.valueOf(e.getCode()));
        if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
          return Status.error(
              new IllegalStateException(
                  "deleting victim " + key + " failed: " + e.getMessage(), e));
        }
      }
      return Status.success();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Status.error("interrupted while waiting for the API rate limiter");
    }
  }

  private static boolean hasCondition(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("DisruptionTarget".equals(c.getType())
          && "True".equals(c.getStatus())
          && REASON.equals(c.getReason())) {
        return true;
      }
    }
    return false;
  }

  private static List<Object> conditions(Pod pod, String message, InstantSource clock) {
    List<Object> out = new ArrayList<>();
    if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
      for (PodCondition c : pod.getStatus().getConditions()) {
        if (!"DisruptionTarget".equals(c.getType())) {
          out.add(c);
        }
      }
    }
    out.add(
        Map.of(
            "type",
            "DisruptionTarget",
            "status",
            "True",
            "reason",
            REASON,
            "message",
            message,
            "lastTransitionTime",
            clock.instant().toString()));
    return out;
  }
}
