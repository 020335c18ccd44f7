package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.PodLifecycle;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The calls the fake kubelet and the scheduler will make work on the real apiserver: node status
 * through {@code nodes/status}, binding through {@code pods/binding}, pod status through {@code
 * pods/status}.
 */
@ExtendWith(ControlPlaneExtension.class)
class NodeAndPodLifecycleE2E {
  private static String nodeName;

  @BeforeAll
  static void registerNode(KubernetesClient client, TestNamespace ns) {
    nodeName = ns.name() + "-gpu-node";
    FakeNode.named(nodeName).resource("nvidia.com/gpu", "8").register(client);
  }

  @AfterAll
  static void removeNode(KubernetesClient client) {
    client.nodes().withName(nodeName).delete();
  }

  private static Pod gpuPod(KubernetesClient client, TestNamespace ns, String name) {
    return client
        .pods()
        .inNamespace(ns.name())
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName("hami-scheduler")
                .addNewContainer()
                .withName("cuda")
                .withImage("nvidia/cuda:12.4.0-base-ubuntu22.04")
                .withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("1"))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  @Test
  void nodeStatus_publishesCapacityAndAllocatable(KubernetesClient client) {
    Node node = client.nodes().withName(nodeName).get();

    assertThat(node.getStatus().getCapacity()).containsEntry("nvidia.com/gpu", new Quantity("8"));
    assertThat(node.getStatus().getAllocatable())
        .containsEntry("nvidia.com/gpu", new Quantity("8"))
        .containsEntry("cpu", new Quantity("16"))
        .containsEntry("pods", new Quantity("110"));
    assertThat(node.getStatus().getConditions())
        .filteredOn(c -> c.getType().equals("Ready"))
        .extracting(NodeCondition::getStatus)
        .containsExactly("True");
    assertThat(node.getMetadata().getLabels()).containsEntry("kubernetes.io/hostname", nodeName);
  }

  @Test
  void nodeStatus_republishingChangesAllocatable(KubernetesClient client, TestNamespace ns) {
    String name = ns.name() + "-shrinking";
    FakeNode node = FakeNode.named(name).resource("nvidia.com/gpu", "4");
    node.register(client);
    try {
      Node after = node.resource("nvidia.com/gpu", "2").publishStatus(client);

      assertThat(after.getStatus().getAllocatable())
          .containsEntry("nvidia.com/gpu", new Quantity("2"));
      assertThat(client.nodes().withName(name).get().getStatus().getCapacity())
          .containsEntry("nvidia.com/gpu", new Quantity("2"));
    } finally {
      client.nodes().withName(name).delete();
    }
  }

  @Test
  void boundPod_getsNodeAndScheduledCondition_thenRunsThroughStatus(
      KubernetesClient client, TestNamespace ns) {
    Pod pod = gpuPod(client, ns, "bound");
    assertThat(pod.getSpec().getNodeName()).isNull();
    assertThat(pod.getSpec().getContainers().get(0).getResources().getRequests())
        .as("requests default to limits for extended resources")
        .containsEntry("nvidia.com/gpu", new Quantity("1"));

    PodLifecycle.bind(client, pod, nodeName);
    Pod bound = client.pods().inNamespace(ns.name()).withName("bound").get();

    assertThat(bound.getSpec().getNodeName()).isEqualTo(nodeName);
    assertThat(bound.getStatus().getConditions())
        .filteredOn(c -> c.getType().equals("PodScheduled"))
        .extracting(PodCondition::getStatus)
        .containsExactly("True");

    Pod running = PodLifecycle.markRunning(client, bound);

    assertThat(running.getStatus().getPhase()).isEqualTo("Running");
    assertThat(running.getStatus().getContainerStatuses())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getName()).isEqualTo("cuda");
              assertThat(s.getReady()).isTrue();
              assertThat(s.getState().getRunning().getStartedAt()).isNotBlank();
            });
    assertThat(running.getStatus().getConditions())
        .extracting(PodCondition::getType)
        .containsOnlyOnce("PodScheduled", "Initialized", "ContainersReady", "Ready");
    assertThat(client.pods().inNamespace(ns.name()).withName("bound").get().getStatus().getPhase())
        .isEqualTo("Running");
  }

  @Test
  void bindingTwice_isAConflict(KubernetesClient client, TestNamespace ns) {
    Pod pod = gpuPod(client, ns, "bound-twice");
    PodLifecycle.bind(client, pod, nodeName);

    assertThatThrownBy(() -> PodLifecycle.bind(client, pod, nodeName))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409))
        .hasMessageContaining("already assigned to node");
  }

  @Test
  void bindingWithStaleUid_isRefused(KubernetesClient client, TestNamespace ns) {
    Pod pod = gpuPod(client, ns, "recreated");
    Pod stale =
        new PodBuilder(pod)
            .editMetadata()
            .withUid(UUID.randomUUID().toString())
            .endMetadata()
            .build();

    assertThatThrownBy(() -> PodLifecycle.bind(client, stale, nodeName))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409))
        .hasMessageContaining("UID");
    assertThat(
            client
                .pods()
                .inNamespace(ns.name())
                .withName("recreated")
                .get()
                .getSpec()
                .getNodeName())
        .isNull();
  }

  @Test
  void admission_mountsTheServiceAccountToken(KubernetesClient client, TestNamespace ns) {
    Pod pod = gpuPod(client, ns, "admitted");

    assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("default");
    assertThat(pod.getSpec().getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getName()).startsWith("kube-api-access-");
              assertThat(v.getProjected().getSources())
                  .anySatisfy(src -> assertThat(src.getServiceAccountToken()).isNotNull());
            });
    assertThat(pod.getStatus().getPhase()).isEqualTo("Pending");
  }
}
