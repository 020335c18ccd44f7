package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The light nodes' node-side writes against fabric8's CRUD mock server. */
@EnableKubernetesMockClient(crud = true)
final class LightNodesTest {

  KubernetesClient client;

  private final Workload.Nodes spec =
      new Workload.Nodes(3, 2, 16384, 10, Workload.NodeKind.LIGHT, Duration.ofSeconds(30));

  @AfterEach
  void tearDown() {
    client.nodes().delete();
  }

  private static NodeStatus ready() {
    return new NodeStatusBuilder()
        .withConditions(new NodeConditionBuilder().withType("Ready").withStatus("True").build())
        .build();
  }

  @Test
  void statusUpdate_thatConflictsWithAnotherWriter_isRetried() {
    Node created =
        client
            .nodes()
            .resource(
                new NodeBuilder().withNewMetadata().withName("bench-node-0").endMetadata().build())
            .create();
    // Another HAMi-protocol component annotates the node between its create and its status.
    client
        .nodes()
        .withName("bench-node-0")
        .edit(
            n -> {
              n.getMetadata().setAnnotations(Map.of("hami.io/node-handshake", "Requesting_x"));
              return n;
            });
    try (LightNodes light = new LightNodes(client, spec, "hami-bench", 1)) {
      Node withStatus = light.publishStatus(created, ready());
      assertThat(withStatus.getStatus().getConditions()).singleElement();
    }
    Node stored = client.nodes().withName("bench-node-0").get();
    assertThat(stored.getStatus().getConditions().get(0).getType()).isEqualTo("Ready");
    assertThat(stored.getMetadata().getAnnotations())
        .containsEntry("hami.io/node-handshake", "Requesting_x");
  }

  @Test
  void statusUpdate_ofANodeGone_fails() {
    Node ghost =
        new NodeBuilder()
            .withNewMetadata()
            .withName("bench-node-9")
            .withResourceVersion("1")
            .endMetadata()
            .build();
    try (LightNodes light = new LightNodes(client, spec, "hami-bench", 1)) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> light.publishStatus(ghost, ready()))
          .isInstanceOf(KubernetesClientException.class);
    }
  }

  @Test
  void deleteAll_removesEveryNodeItCreated_andToleratesOnesAlreadyGone() throws Exception {
    LightNodes light = new LightNodes(client, spec, "hami-bench", 2);
    try {
      light.start();
      assertThat(light.names()).hasSize(3);
      assertThat(client.nodes().list().getItems()).hasSize(3);
      client.nodes().withName(LightNodes.nodeName(1)).delete(); // gone behind the harness's back
    } finally {
      light.close();
      light.deleteAll();
    }
    assertThat(light.created()).isEmpty();
    assertThat(client.nodes().list().getItems()).isEmpty();
  }

  @Test
  void once_runsTheCleanUpOnce_whicheverCallerComesFirst() {
    int[] runs = new int[1];
    Runnable cleanUp = ClusterBench.once(() -> runs[0]++);
    cleanUp.run();
    cleanUp.run();
    assertThat(runs[0]).isEqualTo(1);
  }
}
