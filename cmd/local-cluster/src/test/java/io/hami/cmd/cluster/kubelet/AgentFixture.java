package io.hami.cmd.cluster.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.nodeagent.NodeAgent;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.nvml.GpuInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The node the agent tests run on, against the fabric8 CRUD mock server: {@link #NODE} with two
 * T4s, each split in four, the agent's configuration and tuning, and the node reads and writes the
 * scheduler's side makes.
 */
final class AgentFixture {
  static final String NODE = "gpu-node-1";
  static final String RESOURCE = "nvidia.com/gpu";
  static final String GPU0 = "GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76";
  static final String GPU1 = "GPU-ebe7c3f7-303d-558d-435e-99a160631fe4";
  static final String LOCK_TIME = "2026-08-21T16:20:39+08:00";

  private AgentFixture() {}

  /** Creates the node, without annotations, unless it exists. */
  static void createNode(KubernetesClient client) {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .createOr(NonDeletingOperation::update);
  }

  /** The node's two T4s. */
  static FakeNvml twoT4s() {
    return new FakeNvml(
        List.of(
            new GpuInfo(0, GPU0, "Tesla T4", 15360, "00000000:18:00.0", 0, false),
            new GpuInfo(1, GPU1, "Tesla T4", 15360, "00000000:3B:00.0", 1, false)));
  }

  /** The agent's configuration: four shares a GPU, no periodic registration during a test. */
  static NodeAgentConfig config(Path deviceDir, Path hook) {
    return NodeAgentConfig.builder(NODE)
        .deviceDir(deviceDir)
        .hookPath(hook)
        .splitCount(4)
        .registerInterval(Duration.ofMinutes(10))
        .build();
  }

  /** Fast retries, cache names counted by {@code caches}, the node's pods read from the server. */
  static NodeAgent.Tuning tuning(AtomicInteger caches) {
    return new NodeAgent.Tuning(
        Duration.ofMillis(50),
        Duration.ofMillis(200),
        () -> "cache-" + caches.incrementAndGet(),
        // The CRUD mock server indexes no spec fields, so filter on this side.
        (c, node) ->
            c.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .toList());
  }

  static Node node(KubernetesClient client) {
    return client.nodes().withName(NODE).get();
  }

  static @Nullable String nodeAnnotation(KubernetesClient client, String key) {
    Map<String, String> a = node(client).getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  /**
   * Sets a node annotation with a merge patch, as the scheduler writes it: no resourceVersion, so
   * the agent's own concurrent registration patch cannot make it fail with a conflict.
   */
  static void patchNode(KubernetesClient client, String key, String value) {
    client
        .nodes()
        .withName(NODE)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            new NodeBuilder().withNewMetadata().addToAnnotations(key, value).endMetadata().build());
  }
}
