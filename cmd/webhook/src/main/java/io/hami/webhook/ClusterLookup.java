package io.hami.webhook;

import com.github.benmanes.caffeine.cache.Ticker;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the webhook reads from the cluster besides the pod under review. Implementations may cache;
 * each method may throw a {@link RuntimeException} when the answer cannot be had, and the webhook
 * then admits the pod as its failurePolicy ({@code Ignore}) would.
 */
public interface ClusterLookup {

  /** The namespace's labels, or empty if the namespace does not exist. */
  Optional<Map<String, String>> namespaceLabels(String namespace);

  /** The ResourceQuotas of the namespace. */
  List<ResourceQuota> quotas(String namespace);

  /** The pods of the namespace; asked only when a quota on GPU resources applies. */
  List<Pod> pods(String namespace);

  /** Reads through the API, caching namespaces for 30 s and quotas for 10 s. */
  static ClusterLookup api(KubernetesClient client) {
    return new ApiClusterLookup(client, Ticker.systemTicker());
  }
}
