package io.hami.framework.runtime;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.hami.kube.KubeClients;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * Counts every request the scheduler's client sends, by verb, resource and response code, as {@code
 * hami_scheduler_client_requests_total}. It sits in the HTTP client, so it sees the requests of
 * plugins and informers as well as the runtime's own, which is what a requests-per-pod figure must
 * include. Thread-safe.
 */
public final class ClientRequestMetrics implements Interceptor {
  public static final String NAME = "hami_scheduler_client_requests_total";

  private final Counter counter =
      Counter.builder()
          .name(NAME)
          .help("Requests sent by the scheduler's API client, by verb, resource and response code.")
          .labelNames("verb", "resource", "code")
          .build();
  private final ConcurrentMap<String, CounterDataPoint> points = new ConcurrentHashMap<>();

  /** A client builder for {@code config} ({@link KubeClients}) whose requests this counts. */
  public KubernetesClientBuilder clientBuilder(Config config) {
    return KubeClients.builder(
        config, b -> b.addOrReplaceInterceptor("hami-request-metrics", this));
  }

  public void register(PrometheusRegistry registry) {
    registry.register(counter);
  }

  @Override
  public void after(
      HttpRequest request,
      HttpResponse<?> response,
      AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    record(
        request.method(),
        request.uri().getRawPath(),
        request.uri().getRawQuery(),
        Integer.toString(response.code()));
  }

  @Override
  public void afterConnectionFailure(HttpRequest request, Throwable failure) {
    record(request.method(), request.uri().getRawPath(), request.uri().getRawQuery(), "error");
  }

  void record(String method, String path, @Nullable String query, String code) {
    Request r = classify(method, path, query);
    String key = r.verb() + ' ' + r.resource() + ' ' + code;
    CounterDataPoint p = points.get(key);
    if (p == null) {
      p = points.computeIfAbsent(key, k -> counter.labelValues(r.verb(), r.resource(), code));
    }
    p.inc();
  }

  /** A request as the API server's audit log names it. */
  record Request(String verb, String resource) {}

  /**
   * Maps an HTTP request to a Kubernetes verb and resource ({@code pods}, {@code pods/binding}):
   * {@code /api/v1/namespaces/ns/pods/p/binding} is a {@code create} of {@code pods/binding}.
   */
  static Request classify(String method, String path, @Nullable String query) {
    String[] parts = path.startsWith("/") ? path.substring(1).split("/") : path.split("/");
    int i;
    if (parts.length >= 2 && parts[0].equals("api")) {
      i = 2;
    } else if (parts.length >= 3 && parts[0].equals("apis")) {
      i = 3;
    } else {
      return new Request(method.toLowerCase(Locale.ROOT), "nonresource");
    }
    if (i + 1 < parts.length && parts[i].equals("namespaces") && i + 2 < parts.length) {
      i += 2;
    }
    String resource = i < parts.length ? parts[i] : "";
    boolean named = i + 1 < parts.length;
    if (i + 2 < parts.length) {
      resource = resource + "/" + parts[i + 2];
    }
    boolean watch = query != null && (query.contains("watch=true") || query.contains("watch=1"));
    String verb =
        switch (method) {
          case "GET" -> watch ? "watch" : named ? "get" : "list";
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> named ? "delete" : "deletecollection";
          default -> method.toLowerCase(Locale.ROOT);
        };
    return new Request(verb, resource.isEmpty() ? "unknown" : resource);
  }
}
