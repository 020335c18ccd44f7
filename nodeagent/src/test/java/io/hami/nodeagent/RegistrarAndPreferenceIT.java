package io.hami.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.model.Annotations;
import io.hami.model.testing.MakeBoundPod;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.Allocator;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.publish.NodeRegistrar;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class RegistrarAndPreferenceIT {
  KubernetesClient client;

  @Test
  void registrationRetriesSoonAfterAnError() throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec("1xA10:24576MiB", "late-node");
    NodeAgentConfig config =
        NodeAgentConfig.builder("late-node")
            .registerInterval(Duration.ofHours(1))
            .registerErrorInterval(Duration.ofMillis(200))
            .build();
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    NodeRegistrar registrar =
        new NodeRegistrar(
            client, config, new GpuInventory(nvml.devices()), nvml, Clock.systemUTC(), executor);
    registrar.startAsync().awaitRunning();
    try {
      Thread.sleep(500);
      // The node appears only now: the next attempt comes after the error interval, not the hour.
      client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName("late-node").endMetadata().build())
          .createOr(NonDeletingOperation::update);
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                Node n = client.nodes().withName("late-node").get();
                assertThat(n.getMetadata().getAnnotations())
                    .containsKey(Annotations.NODE_NVIDIA_REGISTER)
                    // Allocate finds its pod without the node lock.
                    .containsEntry(Annotations.NODE_LOCK_FREE, "true");
              });
    } finally {
      registrar.stopAsync().awaitTerminated();
      executor.shutdownNow();
    }
  }

  /**
   * A HAMi v2.10 scheduler writes {@code Requesting_<now>} whenever the value is not a request; an
   * answer while the kubelet registration shows the agent alive would make it flip every cycle.
   */
  @Test
  void handshakeIsAnsweredOnlyWhileAllocatableIsZero() throws Exception {
    String request = "Requesting_2026-12-03 10:00:00";
    for (String allocatable : List.of("0", "4")) {
      String name = "hs-" + allocatable;
      client
          .nodes()
          .resource(
              new NodeBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .addToAnnotations(Annotations.NODE_HANDSHAKE, request)
                  .endMetadata()
                  .withNewStatus()
                  .addToAllocatable("nvidia.com/gpu", new Quantity(allocatable))
                  .endStatus()
                  .build())
          .createOr(NonDeletingOperation::update);
      FakeNvml nvml = FakeNvml.fromSpec("1xA10:24576MiB", name);
      ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
      try {
        new NodeRegistrar(
                client,
                NodeAgentConfig.builder(name).build(),
                new GpuInventory(nvml.devices()),
                nvml,
                Clock.systemUTC(),
                executor)
            .registerOnce();
      } finally {
        executor.shutdownNow();
      }
      String after =
          client
              .nodes()
              .withName(name)
              .get()
              .getMetadata()
              .getAnnotations()
              .get(Annotations.NODE_HANDSHAKE);
      if (allocatable.equals("0")) {
        assertThat(after).as("no kubelet registration: reported").startsWith("Reported ");
      } else {
        assertThat(after)
            .as("registered with the kubelet: left to the scheduler")
            .isEqualTo(request);
      }
    }
  }

  @Test
  void topologyScoreIsPublishedWhenEnabled() throws Exception {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("topo").endMetadata().build())
        .createOr(NonDeletingOperation::update);
    FakeNvml nvml = FakeNvml.fromSpec("2xA100:40960MiB", "topo").withNvLinks(0, 1, 12);
    String u0 = nvml.devices().get(0).uuid();
    String u1 = nvml.devices().get(1).uuid();
    NodeAgentConfig config = NodeAgentConfig.builder("topo").topologyScore(true).build();
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try {
      new NodeRegistrar(
              client, config, new GpuInventory(nvml.devices()), nvml, Clock.systemUTC(), executor)
          .registerOnce();
    } finally {
      executor.shutdownNow();
    }
    assertThat(client.nodes().withName("topo").get().getMetadata().getAnnotations())
        .containsEntry(
            Annotations.NODE_NVIDIA_SCORE,
            "[{\"uuid\":\""
                + u0
                + "\",\"score\":{\""
                + u1
                + "\":1230}},{\"uuid\":\""
                + u1
                + "\",\"score\":{\""
                + u0
                + "\":1230}}]");
  }

  @Test
  void preferredAllocationPicksReplicasOfTheSchedulersGpus() {
    String node = "pref";
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    client
        .pods()
        .inNamespace("default")
        .resource(
            MakeBoundPod.bound("p", node, ";GPU-bbb,NVIDIA,1000,10:GPU-ccc,NVIDIA,1000,10:;")
                .initContainer("i", 0)
                .container("c", 2)
                .build())
        .create();
    NodeAgentConfig config = NodeAgentConfig.builder(node).preferredAllocation(true).build();
    Allocator allocator =
        new Allocator(
            client, config, () -> "x", () -> client.pods().inAnyNamespace().list().getItems());

    var r =
        allocator.preferred(
            PreferredAllocationRequest.newBuilder()
                .addContainerRequests(
                    ContainerPreferredAllocationRequest.newBuilder()
                        .addAllAvailableDeviceIDs(
                            List.of(
                                "GPU-aaa-0", "GPU-aaa-1", "GPU-bbb-0", "GPU-bbb-1", "GPU-ccc-0"))
                        .setAllocationSize(2))
                .build());

    assertThat(r.getContainerResponses(0).getDeviceIDsList())
        .containsExactly("GPU-bbb-0", "GPU-ccc-0");
  }
}
