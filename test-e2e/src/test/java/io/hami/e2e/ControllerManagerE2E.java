package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The controller-manager of the e2e control plane does what tests rely on. */
@ExtendWith(ControlPlaneExtension.class)
class ControllerManagerE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @Test
  void resourceQuotaStatus_countsThePodsOfItsNamespace(KubernetesClient client, TestNamespace ns) {
    client
        .resourceQuotas()
        .inNamespace(ns.name())
        .resource(
            new ResourceQuotaBuilder()
                .withNewMetadata()
                .withName("quota")
                .endMetadata()
                .withNewSpec()
                .withHard(Map.of("pods", new Quantity("5"), "requests.cpu", new Quantity("4")))
                .endSpec()
                .build())
        .create();
    await()
        .atMost(PATIENCE)
        .until(() -> used(client, ns) != null && used(client, ns).containsKey("pods"));
    client
        .pods()
        .inNamespace(ns.name())
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("counted")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .withRequests(Map.of("cpu", new Quantity("500m")))
                .withLimits(Map.of("cpu", new Quantity("500m")))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                new Quantity("1").equals(used(client, ns).get("pods"))
                    && new Quantity("500m").equals(used(client, ns).get("requests.cpu")));
    client.pods().inNamespace(ns.name()).withName("counted").withGracePeriod(0).delete();
    // The class's other tests share the namespace.
    client.resourceQuotas().inNamespace(ns.name()).withName("quota").delete();
  }

  private static Map<String, Quantity> used(KubernetesClient client, TestNamespace ns) {
    ResourceQuota q = client.resourceQuotas().inNamespace(ns.name()).withName("quota").get();
    return q == null || q.getStatus() == null ? Map.of() : q.getStatus().getUsed();
  }

  @Test
  void immediateClaim_isBoundToItsVolumeByThePvBinder(KubernetesClient client, TestNamespace ns) {
    String volume = ns.name() + "-pv";
    client
        .persistentVolumes()
        .resource(
            new PersistentVolumeBuilder()
                .withNewMetadata()
                .withName(volume)
                .endMetadata()
                .withNewSpec()
                .withCapacity(Map.of("storage", new Quantity("1Gi")))
                .withAccessModes("ReadWriteOnce")
                .withStorageClassName("")
                .withNewHostPath()
                .withPath("/tmp/" + volume)
                .endHostPath()
                .endSpec()
                .build())
        .create();
    try {
      client
          .persistentVolumeClaims()
          .inNamespace(ns.name())
          .resource(
              new PersistentVolumeClaimBuilder()
                  .withNewMetadata()
                  .withName("data")
                  .endMetadata()
                  .withNewSpec()
                  .withAccessModes("ReadWriteOnce")
                  .withStorageClassName("")
                  .withVolumeName(volume)
                  .withNewResources()
                  .withRequests(Map.of("storage", new Quantity("1Gi")))
                  .endResources()
                  .endSpec()
                  .build())
          .create();
      PersistentVolumeClaim bound =
          await()
              .atMost(PATIENCE)
              .until(
                  () ->
                      client.persistentVolumeClaims().inNamespace(ns.name()).withName("data").get(),
                  c -> c.getStatus() != null && "Bound".equals(c.getStatus().getPhase()));
      assertThat(bound.getSpec().getVolumeName()).isEqualTo(volume);
    } finally {
      client.persistentVolumeClaims().inNamespace(ns.name()).withName("data").delete();
      client.persistentVolumes().withName(volume).delete();
    }
  }

  @Test
  void deployment_getsItsPodsFromTheReplicaSetController(
      KubernetesClient client, TestNamespace ns) {
    Map<String, String> labels = Map.of("app", "web");
    client
        .apps()
        .deployments()
        .inNamespace(ns.name())
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .endMetadata()
                .withNewSpec()
                .withReplicas(2)
                .withNewSelector()
                .withMatchLabels(labels)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                // No scheduler serves this name: the pods stay pending.
                .withSchedulerName("nobody")
                .addNewContainer()
                .withName("c")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .withRequests(Map.of("cpu", new Quantity("100m")))
                .endResources()
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
    await()
        .atMost(PATIENCE)
        .until(
            () -> client.pods().inNamespace(ns.name()).withLabel("app", "web").list().getItems(),
            pods -> pods.size() == 2);
    client.apps().deployments().inNamespace(ns.name()).withName("web").delete();
    // The garbage collector removes the ReplicaSet and its pods with the Deployment.
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                client.apps().replicaSets().inNamespace(ns.name()).list().getItems().isEmpty()
                    && client
                        .pods()
                        .inNamespace(ns.name())
                        .withLabel("app", "web")
                        .list()
                        .getItems()
                        .stream()
                        .allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
  }
}
