package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.stream.Stream;
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
}
