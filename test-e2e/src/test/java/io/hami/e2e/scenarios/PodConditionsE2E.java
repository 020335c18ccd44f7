package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.GpuNode;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler's PodScheduled writes on a real apiserver touch only that condition: a condition
 * another writer put on the pod survives the scheduler's failed attempts and the binding.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class PodConditionsE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String OTHER = "example.com/Checked";
  private static final String WANTED = "e2e.hami.io/wanted";
  private static final String TAINT = "e2e.hami.io/not-yet";

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();

  @AfterEach
  void stopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private GpuNode node(KubernetesClient client, String name) throws Exception {
    GpuNode n = GpuNode.start(client, dir, name, 10, List.of(GpuNode.gpu(0, 16000)));
    nodes.add(n);
    return n;
  }

  private static Optional<PodCondition> condition(Pod pod, String type) {
    return pod.getStatus() == null || pod.getStatus().getConditions() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream()
            .filter(c -> type.equals(c.getType()))
            .findFirst();
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  @Test
  void anotherWritersCondition_survivesFailedAttemptsAndTheBinding(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String stem = ns.name() + "-cond-";
    node(client, stem + 0);
    String name = "conditions";
    client
        .pods()
        .inNamespace(ns.name())
        .resource(GpuPods.named(name).gpu(1, 2000, 10).selector(WANTED, "yes").build())
        .create();
    PodCondition first =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> condition(get(client, ns, name), "PodScheduled"),
                c -> c.isPresent() && "False".equals(c.get().getStatus()))
            .orElseThrow();

    // Another controller adds its own condition through the status subresource.
    Pod current = get(client, ns, name);
    client
        .pods()
        .inNamespace(ns.name())
        .resource(
            new PodBuilder(current)
                .editStatus()
                .addToConditions(
                    new PodConditionBuilder()
                        .withType(OTHER)
                        .withStatus("True")
                        .withReason("Checked")
                        .withLastTransitionTime(first.getLastTransitionTime())
                        .build())
                .endStatus()
                .build())
        .updateStatus();

    // A second node gets the wanted label but a taint the pod does not tolerate: the scheduler
    // tries again and writes a new message.
    String second = stem + 1;
    node(client, second);
    client
        .nodes()
        .withName(second)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editSpec()
                    .addNewTaint()
                    .withKey(TAINT)
                    .withEffect("NoSchedule")
                    .endTaint()
                    .endSpec()
                    .build());
    client
        .nodes()
        .withName(second)
        .edit(
            n ->
                new NodeBuilder(n).editMetadata().addToLabels(WANTED, "yes").endMetadata().build());
    Pod retried =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> get(client, ns, name),
                p ->
                    condition(p, "PodScheduled")
                        .map(c -> c.getMessage() != null && c.getMessage().startsWith("0/2 nodes"))
                        .orElse(false));
    assertThat(condition(retried, OTHER)).as("the other writer's condition").isPresent();
    assertThat(condition(retried, "PodScheduled").orElseThrow().getLastTransitionTime())
        .as("PodScheduled stayed False, so its transition time is kept")
        .isEqualTo(first.getLastTransitionTime());

    // The taint goes: the pod binds there and the other condition is still on it.
    client
        .nodes()
        .withName(second)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editSpec()
                    .withTaints(
                        n.getSpec().getTaints().stream()
                            .filter(t -> !TAINT.equals(t.getKey()))
                            .toList())
                    .endSpec()
                    .build());
    Pod bound =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> get(client, ns, name),
                p ->
                    p.getSpec().getNodeName() != null
                        && condition(p, "PodScheduled")
                            .map(c -> "True".equals(c.getStatus()))
                            .orElse(false));
    assertThat(bound.getSpec().getNodeName()).isEqualTo(second);
    assertThat(condition(bound, OTHER)).as("the other writer's condition").isPresent();
  }
}
