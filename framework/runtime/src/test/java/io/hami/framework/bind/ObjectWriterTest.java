package io.hami.framework.bind;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.api.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The API writer against fabric8's CRUD mock server. */
@EnableKubernetesMockClient(crud = true)
class ObjectWriterTest {
  KubernetesClient client;

  private PersistentVolumeClaim read;

  @BeforeEach
  void setUp() {
    client.persistentVolumeClaims().inNamespace("default").withName("c").delete();
    read =
        client
            .persistentVolumeClaims()
            .inNamespace("default")
            .resource(
                new PersistentVolumeClaimBuilder()
                    .withNewMetadata()
                    .withName("c")
                    .withNamespace("default")
                    .endMetadata()
                    .withNewSpec()
                    .withStorageClassName("local")
                    .endSpec()
                    .build())
            .create();
  }

  private static PersistentVolumeClaim annotated(PersistentVolumeClaim c, String node) {
    return new PersistentVolumeClaimBuilder(c)
        .editMetadata()
        .addToAnnotations("volume.kubernetes.io/selected-node", node)
        .endMetadata()
        .build();
  }

  @Test
  void anUpdate_isWritten() {
    assertThat(ObjectWriter.api(client).update(annotated(read, "n1")).isSuccess()).isTrue();
    assertThat(
            client
                .persistentVolumeClaims()
                .inNamespace("default")
                .withName("c")
                .get()
                .getMetadata()
                .getAnnotations())
        .containsEntry("volume.kubernetes.io/selected-node", "n1");
  }

  @Test
  void anUpdateThatLandedBeforeItsAnswerWasLost_isASuccess() {
    // The first write landed; its retry carries the version that write replaced.
    client.resource(annotated(read, "n1")).update();

    Status s = ObjectWriter.api(client).update(annotated(read, "n1"));

    assertThat(s.isSuccess()).as("%s", s).isTrue();
  }

  @Test
  void aConflictWithSomeoneElsesWrite_isAnError() {
    client.resource(annotated(read, "n2")).update();

    Status s = ObjectWriter.api(client).update(annotated(read, "n1"));

    assertThat(s.isSuccess()).isFalse();
    assertThat(s.toString()).contains("PersistentVolumeClaim c");
  }
}
