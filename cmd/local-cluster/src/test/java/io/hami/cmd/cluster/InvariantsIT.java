package io.hami.cmd.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.model.Annotations;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The invariant check against fabric8's CRUD mock server. */
@EnableKubernetesMockClient(crud = true)
class InvariantsIT {
  KubernetesClient client;

  @Test
  void podOfANodeThatIsGone_isNoCrash_theNodeIsReported() {
    client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("default")
                .addToAnnotations(Annotations.VGPU_NODE, "gone")
                .addToAnnotations(Annotations.VGPU_DEVICES_ALLOCATED, "GPU-0,NVIDIA,1024,10:;")
                .endMetadata()
                .withNewSpec()
                .withNodeName("gone")
                .addNewContainer()
                .withName("c")
                .withImage("i")
                .endContainer()
                .endSpec()
                .build())
        .create();

    List<String> violations = Invariants.check(client, Set.of("gone"));

    assertThat(violations).contains("node gone does not exist");
  }
}
