package io.hami.webhook;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.Ticker;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link ClusterLookup} through the API server. Namespaces and quotas change rarely and are asked
 * for every pod, so they are cached briefly; pods are listed fresh (from the API server's watch
 * cache, {@code resourceVersion=0}) because quota usage must be current.
 *
 * <p>Thread-safe: the caches are Caffeine caches, which load each key once at a time.
 */
final class ApiClusterLookup implements ClusterLookup {

  static final Duration NAMESPACE_TTL = Duration.ofSeconds(30);
  static final Duration QUOTA_TTL = Duration.ofSeconds(10);

  private final KubernetesClient client;
  private final LoadingCache<String, Optional<Map<String, String>>> namespaces;
  private final LoadingCache<String, List<ResourceQuota>> quotas;

  ApiClusterLookup(KubernetesClient client, Ticker ticker) {
    this.client = client;
    this.namespaces =
        Caffeine.newBuilder()
            .ticker(ticker)
            .expireAfterWrite(NAMESPACE_TTL)
            .maximumSize(10_000)
            .build(this::loadNamespace);
    this.quotas =
        Caffeine.newBuilder()
            .ticker(ticker)
            .expireAfterWrite(QUOTA_TTL)
            .maximumSize(10_000)
            .build(ns -> List.copyOf(client.resourceQuotas().inNamespace(ns).list().getItems()));
  }

  private Optional<Map<String, String>> loadNamespace(String name) {
    Namespace ns = client.namespaces().withName(name).get();
    if (ns == null) {
      return Optional.empty();
    }
    Map<String, String> labels = ns.getMetadata() == null ? null : ns.getMetadata().getLabels();
    return Optional.of(labels == null ? Map.of() : Map.copyOf(labels));
  }

  @Override
  public Optional<Map<String, String>> namespaceLabels(String namespace) {
    return namespaces.get(namespace);
  }

  @Override
  public List<ResourceQuota> quotas(String namespace) {
    return quotas.get(namespace);
  }

  @Override
  public List<Pod> pods(String namespace) {
    return client
        .pods()
        .inNamespace(namespace)
        .list(new ListOptionsBuilder().withResourceVersion("0").build())
        .getItems();
  }
}
