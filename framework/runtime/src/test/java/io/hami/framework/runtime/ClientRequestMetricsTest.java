package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

@EnableKubernetesMockClient(crud = true)
class ClientRequestMetricsTest {
  KubernetesClient mockClient;

  record Case(
      String name,
      String method,
      String path,
      @Nullable String query,
      String verb,
      String resource) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "binding",
            "POST",
            "/api/v1/namespaces/ns/pods/p/binding",
            null,
            "create",
            "pods/binding"),
        new Case("pod patch", "PATCH", "/api/v1/namespaces/ns/pods/p", null, "patch", "pods"),
        new Case(
            "pod status",
            "PATCH",
            "/api/v1/namespaces/ns/pods/p/status",
            null,
            "patch",
            "pods/status"),
        new Case("node get", "GET", "/api/v1/nodes/n1", null, "get", "nodes"),
        new Case("node patch", "PATCH", "/api/v1/nodes/n1", null, "patch", "nodes"),
        new Case("pod list", "GET", "/api/v1/pods", "limit=500", "list", "pods"),
        new Case(
            "pod watch",
            "GET",
            "/api/v1/pods",
            "allowWatchBookmarks=true&watch=true",
            "watch",
            "pods"),
        new Case(
            "event create",
            "POST",
            "/apis/events.k8s.io/v1/namespaces/ns/events",
            null,
            "create",
            "events"),
        new Case(
            "lease update",
            "PUT",
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l",
            null,
            "update",
            "leases"),
        new Case(
            "collection delete",
            "DELETE",
            "/api/v1/namespaces/ns/pods",
            null,
            "deletecollection",
            "pods"),
        new Case("non-resource", "GET", "/readyz", null, "get", "nonresource"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void classify(Case c) {
    ClientRequestMetrics.Request r = ClientRequestMetrics.classify(c.method(), c.path(), c.query());
    assertThat(r).isEqualTo(new ClientRequestMetrics.Request(c.verb(), c.resource()));
  }

  @Test
  void counts_requestsOfAClientBuiltWithIt() {
    {
      ClientRequestMetrics metrics = new ClientRequestMetrics();
      PrometheusRegistry registry = new PrometheusRegistry();
      metrics.register(registry);
      Config config = mockClient.getConfiguration();
      try (KubernetesClient client = metrics.clientBuilder(config).build()) {
        client
            .nodes()
            .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
            .create();
        Node n1 = client.nodes().withName("n1").get();
        client.nodes().withName("missing").get();
        // With the object at hand the patch is one request; withName(..).patch(..) would GET first.
        client
            .nodes()
            .resource(n1)
            .patch(
                PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
      }
      assertThat(count(registry, "create", "nodes", "201")).isEqualTo(1);
      assertThat(count(registry, "get", "nodes", "200")).isEqualTo(1);
      // The mock server answers a patch with 202.
      assertThat(count(registry, "patch", "nodes", "202")).isEqualTo(1);
      assertThat(count(registry, "get", "nodes", "404")).isEqualTo(1);
    }
  }

  private static double count(
      PrometheusRegistry registry, String verb, String resource, String code) {
    return registry.scrape().stream()
        .filter(s -> s instanceof CounterSnapshot)
        .map(s -> (CounterSnapshot) s)
        .flatMap(s -> s.getDataPoints().stream())
        .filter(
            d -> d.getLabels().equals(Labels.of("code", code, "resource", resource, "verb", verb)))
        .mapToDouble(CounterSnapshot.CounterDataPointSnapshot::getValue)
        .sum();
  }
}
