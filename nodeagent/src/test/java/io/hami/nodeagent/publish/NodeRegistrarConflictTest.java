package io.hami.nodeagent.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.nvml.FakeNvml;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 22: a registration patch that meets a conflict re-reads the node and patches again. */
@EnableKubernetesMockClient
class NodeRegistrarConflictTest {
  private static final String NODE = "n1";
  private static final String NODE_PATH = "/api/v1/nodes/" + NODE;

  KubernetesClient client;
  KubernetesMockServer server;
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  private NodeRegistrar registrar() {
    FakeNvml nvml = FakeNvml.fromSpec("1xA10:24576MiB", NODE);
    return new NodeRegistrar(
        client,
        NodeAgentConfig.builder(NODE).build(),
        new GpuInventory(nvml.devices()),
        nvml,
        Clock.systemUTC(),
        executor);
  }

  private List<String> methods() throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (int i = server.getRequestCount(); i > 0; i--) {
      out.add(server.takeRequest().getMethod());
    }
    return out;
  }

  @Test
  void registerOnce_conflict_reReadsTheNodeAndPatchesAgain() throws Exception {
    server
        .expect()
        .get()
        .withPath(NODE_PATH)
        .andReturn(200, new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .always();
    server.expect().patch().withPath(NODE_PATH).andReturn(409, "").once();
    server
        .expect()
        .patch()
        .withPath(NODE_PATH)
        .andReturn(200, new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .always();

    assertThat(registrar().registerOnce()).isEqualTo(NodeRegistrar.Outcome.PATCHED);

    assertThat(methods()).containsExactly("GET", "PATCH", "GET", "PATCH");
  }

  @Test
  void registerOnce_invalidPatch_isNotRetried() throws Exception {
    server
        .expect()
        .get()
        .withPath(NODE_PATH)
        .andReturn(200, new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .always();
    server.expect().patch().withPath(NODE_PATH).andReturn(422, "").always();

    assertThatThrownBy(() -> registrar().registerOnce())
        .isInstanceOf(KubernetesClientException.class);

    assertThat(methods()).containsExactly("GET", "PATCH");
  }
}
