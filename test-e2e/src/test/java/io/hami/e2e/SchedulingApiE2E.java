package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGroupBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.ControlPlane;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The apiserver serves what gang scheduling needs ({@link ControlPlane#FEATURE_GATES}, {@link
 * ControlPlane#RUNTIME_CONFIG}): {@code scheduling.k8s.io/v1alpha2} PodGroups, and a pod's {@code
 * spec.schedulingGroup}, which it drops without the {@code GenericWorkload} gate.
 */
@ExtendWith(ControlPlaneExtension.class)
class SchedulingApiE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @Test
  void podGroup_isServed_andAPodsSchedulingGroupSurvivesARoundTrip(
      KubernetesClient client, TestNamespace ns) {
    assertThat(client.getApiResources(PodGroups.API_VERSION).getResources())
        .extracting(APIResource::getName)
        .contains("podgroups", "podgroups/status");

    GenericKubernetesResource created =
        PodGroups.create(client, ns.name(), PodGroups.gang("trainers", 4));
    GenericKubernetesResource read =
        PodGroups.get(client, ns.name(), "trainers").orElseThrow(AssertionError::new);
    assertThat(created.getMetadata().getUid()).isNotEmpty();
    assertThat(PodGroups.minCount(read)).contains(4);

    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("member")
            .endMetadata()
            .withNewSpec()
            // No scheduler has this name: the pod stays as it was created.
            .withSchedulerName("e2e-nobody")
            .withSchedulingGroup(
                new PodSchedulingGroupBuilder().withPodGroupName("trainers").build())
            .addNewContainer()
            .withName("main")
            .withImage("registry.k8s.io/pause:3.10")
            .endContainer()
            .endSpec()
            .build();
    client.pods().inNamespace(ns.name()).resource(pod).create();
    Pod back = client.pods().inNamespace(ns.name()).withName("member").get();
    assertThat(back.getSpec().getSchedulingGroup())
        .as("spec.schedulingGroup as the apiserver stored it")
        .isNotNull();
    assertThat(back.getSpec().getSchedulingGroup().getPodGroupName()).isEqualTo("trainers");

    // The apiserver puts a protection finalizer on every PodGroup; the controller-manager removes
    // it once no pod refers to the group, so that the group (and its namespace) can go away.
    client.pods().inNamespace(ns.name()).withName("member").withGracePeriod(0).delete();
    PodGroups.deleteAll(client, ns.name());
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> PodGroups.get(client, ns.name(), "trainers").isEmpty());
  }
}
