package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.kube.Bindings;
import io.hami.model.testing.BindingCrudDispatcher;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BindingCrudDispatcherTest {
  private final BindingCrudDispatcher.Served api = BindingCrudDispatcher.serve();
  private final KubernetesClient client = api.client();

  @AfterEach
  void stop() {
    api.close();
  }

  private Pod pod(String name) {
    return client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("kept", "yes")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("x")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private void post(Binding b) {
    client.bindings().inNamespace("default").resource(b).create();
  }

  @Test
  void aBinding_isAppliedToItsPodBeforeTheAnswer() {
    Pod p = pod("p");
    post(Bindings.of(p, "n1", Map.of("a", "1"), Map.of("l", "2")));

    Pod now = client.pods().inNamespace("default").withName("p").get();
    assertThat(now.getSpec().getNodeName()).isEqualTo("n1");
    assertThat(now.getMetadata().getAnnotations())
        .containsEntry("a", "1")
        .containsEntry("kept", "yes");
    assertThat(now.getMetadata().getLabels()).containsEntry("l", "2");
    assertThat(api.recorder().told()).containsExactly("bound p");
  }

  @Test
  void aSecondBinding_isRefusedWithAConflict_asTheApiServerRefusesIt() {
    Pod p = pod("p");
    post(Bindings.of(p, "n1"));

    assertThatThrownBy(() -> post(Bindings.of(p, "n2")))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(409);
              assertThat(e.getMessage()).contains("already assigned to node \"n1\"");
            });
    assertThat(client.pods().inNamespace("default").withName("p").get().getSpec().getNodeName())
        .isEqualTo("n1");
    assertThat(api.recorder().told()).containsExactly("bound p", "refused p on n1");
  }

  @Test
  void aBindingForAnotherUid_orAMissingPod_isRefused() {
    Pod p = pod("p");
    p.getMetadata().setUid("someone-else");
    assertThatThrownBy(() -> post(Bindings.of(p, "n1")))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    p.getMetadata().setName("gone");
    assertThatThrownBy(() -> post(Bindings.of(p, "n1")))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));
    assertThat(api.recorder().told()).isEmpty();
  }
}
