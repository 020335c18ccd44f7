package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BindingsTest {

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("team", "train-0", "uid-1", "gpu-a"),
        Arguments.of("default", "p", "uid-2", "node-7"));
  }

  @ParameterizedTest(name = "{0}/{1} -> {3}")
  @MethodSource("cases")
  void bindsThePodByUidToTheNode(String ns, String name, String uid, String node) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(ns)
            .withName(name)
            .withUid(uid)
            .endMetadata()
            .build();
    Binding b = Bindings.of(pod, node);
    assertThat(b.getMetadata().getNamespace()).isEqualTo(ns);
    assertThat(b.getMetadata().getName()).isEqualTo(name);
    assertThat(b.getMetadata().getUid()).isEqualTo(uid);
    assertThat(b.getTarget().getApiVersion()).isEqualTo("v1");
    assertThat(b.getTarget().getKind()).isEqualTo("Node");
    assertThat(b.getTarget().getName()).isEqualTo(node);
  }

  @Test
  void metadata_travelsInTheBinding_andApplyingItMergesOverThePods() {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace("default")
            .withName("p")
            .withUid("u")
            .withAnnotations(Map.of("keep", "1", "hami.io/bind-phase", "old"))
            .withLabels(Map.of("app", "a"))
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build();
    Binding b =
        Bindings.of(
            pod,
            "n1",
            Map.of("hami.io/bind-phase", "allocating"),
            Map.of("hami.io/vgpu-node", "n1"));
    assertThat(b.getMetadata().getAnnotations()).containsEntry("hami.io/bind-phase", "allocating");
    assertThat(b.getMetadata().getLabels()).containsEntry("hami.io/vgpu-node", "n1");

    Bindings.applyTo(pod, b);
    assertThat(pod.getSpec().getNodeName()).isEqualTo("n1");
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry("keep", "1")
        .containsEntry("hami.io/bind-phase", "allocating");
    assertThat(pod.getMetadata().getLabels())
        .containsEntry("app", "a")
        .containsEntry("hami.io/vgpu-node", "n1");
  }

  @Test
  void noMetadata_leavesTheBindingsMetadataUnset() {
    Pod pod = new PodBuilder().withNewMetadata().withName("p").endMetadata().build();
    Binding b = Bindings.of(pod, "n1");
    assertThat(b.getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(b.getMetadata().getLabels()).isNullOrEmpty();
  }
}
