package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Manifests are checked by the real apiserver's validation and defaulting, and nothing is stored.
 */
@ExtendWith(ControlPlaneExtension.class)
class ServerSideDryRunE2E {
  private static final String FIELD_MANAGER = "hami-e2e";

  private static List<HasMetadata> load(KubernetesClient client, String resource)
      throws IOException {
    try (InputStream in = ServerSideDryRunE2E.class.getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return client.load(in).items();
    }
  }

  private static Resource<HasMetadata> target(
      KubernetesClient client, TestNamespace ns, HasMetadata item) {
    return item instanceof Namespaced
        ? client.resource(item).inNamespace(ns.name())
        : client.resource(item);
  }

  @Test
  void manifest_appliesWithServerSideDryRun_andNothingIsStored(
      KubernetesClient client, TestNamespace ns) throws IOException {
    List<HasMetadata> items = load(client, "/manifests/dry-run-sample.yaml");
    assertThat(items).hasSize(6);

    for (HasMetadata item : items) {
      HasMetadata applied =
          target(client, ns, item).dryRun().fieldManager(FIELD_MANAGER).serverSideApply();

      assertThat(applied.getKind()).as(item.getKind()).isEqualTo(item.getKind());
      assertThat(applied.getMetadata().getUid())
          .as("uid the server gave %s", item.getKind())
          .isNotBlank();
      assertThat(applied.getMetadata().getResourceVersion())
          .as("resourceVersion of a %s that was not stored", item.getKind())
          .isNull();
      assertThat(target(client, ns, item).get())
          .as("%s %s stored by a dry run", item.getKind(), item.getMetadata().getName())
          .isNull();
    }
  }

  @Test
  void dryRun_returnsServerDefaults(KubernetesClient client, TestNamespace ns) throws IOException {
    HasMetadata deployment =
        load(client, "/manifests/dry-run-sample.yaml").stream()
            .filter(i -> i.getKind().equals("Deployment"))
            .findFirst()
            .orElseThrow();

    Deployment applied =
        (Deployment)
            target(client, ns, deployment).dryRun().fieldManager(FIELD_MANAGER).serverSideApply();

    assertThat(applied.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(applied.getSpec().getRevisionHistoryLimit()).isEqualTo(10);
    assertThat(applied.getSpec().getTemplate().getSpec().getRestartPolicy()).isEqualTo("Always");
    assertThat(applied.getMetadata().getNamespace()).isEqualTo(ns.name());
  }

  @Test
  void invalidManifest_isRejectedNamingTheField(KubernetesClient client, TestNamespace ns) {
    Deployment broken =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName("broken")
            .endMetadata()
            .withNewSpec()
            .withNewSelector()
            .addToMatchLabels("app", "one")
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", "other")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .withImage("busybox")
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build();

    assertThatThrownBy(
            () ->
                client
                    .apps()
                    .deployments()
                    .inNamespace(ns.name())
                    .resource(broken)
                    .dryRun()
                    .fieldManager(FIELD_MANAGER)
                    .serverSideApply())
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(422))
        .hasMessageContaining("spec.template.metadata.labels");
  }
}
