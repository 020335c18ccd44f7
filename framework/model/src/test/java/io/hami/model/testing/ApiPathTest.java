package io.hami.model.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ApiPathTest {

  record Case(
      String target,
      @Nullable String namespace,
      @Nullable String resource,
      @Nullable String name,
      @Nullable String subresource,
      String described) {
    @Override
    public String toString() {
      return target;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("/api/v1/namespaces/default/pods/p", "default", "pods", "p", null, "pods \"p\""),
        new Case(
            "/api/v1/namespaces/ns/pods/p/binding?timeout=5s",
            "ns",
            "pods",
            "p",
            "binding",
            "pods \"p\""),
        new Case("/api/v1/namespaces/ns/bindings", "ns", "bindings", null, null, "bindings"),
        new Case("/api/v1/nodes/n1", null, "nodes", "n1", null, "nodes \"n1\""),
        new Case(
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l",
            "kube-system",
            "leases",
            "l",
            null,
            "leases \"l\""),
        new Case("/version", null, null, null, null, "\"/version\""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void parse(Case c) {
    ApiPath p = ApiPath.parse(c.target());
    assertThat(p.namespace()).isEqualTo(c.namespace());
    assertThat(p.resource()).isEqualTo(c.resource());
    assertThat(p.name()).isEqualTo(c.name());
    assertThat(p.subresource()).isEqualTo(c.subresource());
    assertThat(p.describe()).isEqualTo(c.described());
  }
}
