package io.hami.cmd.cluster.kubelet;

import static io.hami.cmd.cluster.kubelet.AgentFixture.GPU0;
import static io.hami.cmd.cluster.kubelet.AgentFixture.GPU1;
import static io.hami.cmd.cluster.kubelet.AgentFixture.LOCK_TIME;
import static io.hami.cmd.cluster.kubelet.AgentFixture.NODE;
import static io.hami.cmd.cluster.kubelet.AgentFixture.RESOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.hami.kube.KubeClients;
import io.hami.model.Annotations;
import io.hami.model.testing.FaultProxy;
import io.hami.model.testing.MakeBoundPod;
import io.hami.nodeagent.NodeAgent;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.publish.NodeRegistrar;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: the node agent talks to the API server through a proxy that fails 5% of its writes
 * (409, 429, 500, dropped connections, writes applied whose answer is lost); its registration still
 * converges and every pod it allocates ends with bind-phase success and its node lock released. The
 * kubelet and the test (the scheduler's side: bound pods and their locks) use the server directly.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class NodeAgentFaultIT {
  static final int PODS = 60;
  static final int REGISTRATIONS = 40;

  KubernetesClient client;
  KubernetesMockServer server;
  @TempDir Path tmp;

  private FaultProxy proxy;
  private KubernetesClient faulty;
  private FakeKubelet kubelet;
  private NodeAgent agent;
  private final AtomicInteger caches = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    proxy =
        FaultProxy.start(
            new InetSocketAddress("127.0.0.1", server.getPort()), 0.05, Duration.ofMillis(300));
    Config config = Config.empty();
    config.setMasterUrl(proxy.url());
    faulty = KubeClients.builder(config).build();
    AgentFixture.createNode(client);
    Path deviceDir = tmp.resolve("device-plugins");
    kubelet = FakeKubelet.start(deviceDir, client, NODE);
    agent =
        NodeAgent.create(
            AgentFixture.config(deviceDir, tmp.resolve("hook")),
            AgentFixture.twoT4s(),
            faulty,
            null,
            Clock.systemUTC(),
            AgentFixture.tuning(caches));
    agent.start(Duration.ofSeconds(30));
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 8, Duration.ofSeconds(20));
  }

  @AfterEach
  void stop() throws Exception {
    try {
      agent.stop(Duration.ofSeconds(10));
      kubelet.close();
    } finally {
      faulty.close();
      proxy.close();
    }
  }

  @Test
  void registrationConverges_andEveryAllocatedPodIsServed_throughFivePercentFaultyWrites()
      throws Exception {
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(nodeAnnotation(Annotations.NODE_NVIDIA_REGISTER)).contains(GPU0, GPU1));
    String register = nodeAnnotation(Annotations.NODE_NVIDIA_REGISTER);
    // Someone else's stale write, repaired by the next pass each time.
    for (int i = 0; i < REGISTRATIONS; i++) {
      patchNode(Annotations.NODE_NVIDIA_REGISTER, "[]");
      assertThat(agent.registrar().registerOnce()).isEqualTo(NodeRegistrar.Outcome.PATCHED);
      assertThat(nodeAnnotation(Annotations.NODE_NVIDIA_REGISTER)).isEqualTo(register);
    }

    for (int i = 0; i < PODS; i++) {
      String name = "p" + i;
      String gpu = i % 2 == 0 ? GPU0 : GPU1;
      Pod pod =
          client
              .pods()
              .inNamespace("default")
              .resource(
                  MakeBoundPod.bound(name, NODE, gpu + ",NVIDIA,1000,10:;")
                      .container("main", 1)
                      .build())
              .create();
      patchNode(Annotations.MUTEX_LOCK, LOCK_TIME + ",default," + name);

      Map<String, ContainerAllocateResponse> r = kubelet.allocatePod(RESOURCE, pod);

      assertThat(r.get("main").getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", gpu);
      Pod after = client.pods().inNamespace("default").withName(name).get();
      assertThat(after.getMetadata().getAnnotations())
          .as("%s (%s)", name, proxy.summary())
          .containsEntry(Annotations.BIND_PHASE, "success")
          .containsEntry(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";");
      assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).as("lock after %s", name).isNull();
      // The pod ends: kubelet frees its devices and the next pod takes the node.
      kubelet.release(pod.getMetadata().getUid());
      client.pods().inNamespace("default").withName(name).delete();
    }

    System.out.println("NodeAgentFaultIT: " + proxy.summary());
    assertThat(proxy.injected()).as("faults injected").isPositive();
  }

  private @Nullable String nodeAnnotation(String key) {
    return AgentFixture.nodeAnnotation(client, key);
  }

  private void patchNode(String key, String value) {
    AgentFixture.patchNode(client, key, value);
  }
}
