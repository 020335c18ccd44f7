package io.hami.framework.bind;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.Status;
import java.time.Duration;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 22 (chaos): a binding whose answer is lost may have been written; the pod read back
 * decides.
 */
@EnableKubernetesMockClient
class ApiBinderTest {
  private static final String BINDING = "/api/v1/namespaces/ns/bindings";
  private static final String POD = "/api/v1/namespaces/ns/pods/p";

  KubernetesMockServer server;
  KubernetesClient client;

  record Case(
      String name, int bindCode, int readCode, @Nullable Pod readBack, boolean wantSuccess) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Pod pod(String uid, @Nullable String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("p")
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .build();
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("answer lost, the pod is bound here", 500, 200, pod("u1", "n1"), true),
        new Case("an earlier try bound it here", 409, 200, pod("u1", "n1"), true),
        new Case("bound elsewhere", 409, 200, pod("u1", "n2"), false),
        new Case("answer lost, the pod is not bound", 500, 200, pod("u1", null), false),
        new Case("a new pod of that name is bound here", 500, 200, pod("u2", "n1"), false),
        new Case("the pod is gone", 500, 404, null, false),
        new Case("the API does not answer the read", 500, 503, null, false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void bind_failedBinding_succeedsOnlyWhenThePodIsBoundHere(Case c) {
    server.expect().post().withPath(BINDING).andReturn(c.bindCode(), "{}").always();
    if (c.readBack() != null) {
      server.expect().get().withPath(POD).andReturn(c.readCode(), c.readBack()).always();
    } else {
      server.expect().get().withPath(POD).andReturn(c.readCode(), "{}").always();
    }
    try (KubernetesClient noRetry =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      ApiBinder binder =
          new ApiBinder(
              noRetry,
              ApiRequestObserver.none(),
              ApiRateLimiter.unlimited(),
              Duration.ofSeconds(1));

      Status got = binder.bind(pod("u1", null), "n1", BindingMetadata.EMPTY);

      assertThat(got.isSuccess()).as("%s: %s", c.name(), got).isEqualTo(c.wantSuccess());
    }
  }
}
