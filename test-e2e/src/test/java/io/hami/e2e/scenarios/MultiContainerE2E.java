package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.nvml.GpuInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pods with several containers, init containers among them: the allocation annotation has one entry
 * per container, init containers first (protocol §1.5), usage counts init containers by their peak
 * and app containers by their sum (§6.5), and every container's Allocate response carries its own
 * devices and limits (§7.5).
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class MultiContainerE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private GpuNode node(KubernetesClient client, String name, GpuInfo... gpus) throws Exception {
    GpuNode n = GpuNode.start(client, dir, name, 10, List.of(gpus));
    nodes.add(n);
    return n;
  }

  /**
   * A container asking for {@code gpus} vGPUs of {@code memMiB} MiB and {@code cores}%, or none
   * when 0.
   */
  private static Container container(String name, int gpus, int memMiB, int cores) {
    ContainerBuilder b =
        new ContainerBuilder().withName(name).withImage("nvidia/cuda:12.4.0-base-ubuntu22.04");
    if (gpus > 0) {
      b.withNewResources()
          .withLimits(
              Map.of(
                  "nvidia.com/gpu", new Quantity(Integer.toString(gpus)),
                  "nvidia.com/gpumem", new Quantity(Integer.toString(memMiB)),
                  "nvidia.com/gpucores", new Quantity(Integer.toString(cores))))
          .endResources();
    }
    return b.build();
  }

  private static Pod pod(String name, String node, List<Container> inits, List<Container> apps) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("hami-scheduler")
        .withTerminationGracePeriodSeconds(1L)
        .withNodeSelector(Map.of("kubernetes.io/hostname", node))
        .withInitContainers(inits)
        .withContainers(apps)
        .endSpec()
        .build();
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  private static Pod awaitAllocated(KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> get(client, ns, name),
            p ->
                p.getMetadata().getAnnotations() != null
                    && "success"
                        .equals(p.getMetadata().getAnnotations().get(Annotations.BIND_PHASE))
                    && "Running".equals(p.getStatus().getPhase()));
  }

  /** Asserts the Allocate response of one container against that container's annotation entry. */
  private static void assertAllocate(
      ContainerAllocateResponse r, String container, List<Invariants.Use> devices) {
    assertThat(r).as("Allocate response for container %s", container).isNotNull();
    Map<String, String> env = r.getEnvsMap();
    assertThat(env)
        .as("env of %s", container)
        .containsEntry(
            "NVIDIA_VISIBLE_DEVICES",
            String.join(",", devices.stream().map(Invariants.Use::uuid).toList()))
        .containsEntry("CUDA_DEVICE_SM_LIMIT", Long.toString(devices.get(0).cores()));
    for (int i = 0; i < devices.size(); i++) {
      assertThat(env)
          .as("env of %s", container)
          .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_" + i, devices.get(i).mem() + "m");
    }
    assertThat(env)
        .as("env of %s", container)
        .doesNotContainKey("CUDA_DEVICE_MEMORY_LIMIT_" + devices.size());
  }

  @Test
  void initAndAppContainers_eachGetTheirOwnDevicesInAnnotationAndAllocate(
      KubernetesClient client, TestNamespace ns) throws Exception {
    GpuInfo gpu0 = GpuNode.gpu(0, 16000);
    GpuInfo gpu1 = GpuNode.gpu(1, 16000);
    GpuNode node = node(client, ns.name() + "-multi", gpu0, gpu1);

    Pod created =
        client
            .pods()
            .inNamespace(ns.name())
            .resource(
                pod(
                    "multi",
                    node.name(),
                    List.of(container("setup", 0, 0, 0), container("warmup", 1, 2000, 20)),
                    List.of(
                        container("trainer", 1, 3000, 30),
                        container("sidecar", 0, 0, 0),
                        container("evaluator", 2, 1000, 10))))
            .create();
    Pod pod = awaitAllocated(client, ns, "multi");
    Map<String, String> a = pod.getMetadata().getAnnotations();
    System.out.println(
        "e2e: multi-container allocation: " + a.get(Annotations.VGPU_DEVICES_ALLOCATED));

    List<List<Invariants.Use>> entries =
        Invariants.parseDevices(a.get(Annotations.VGPU_DEVICES_ALLOCATED));
    assertThat(entries).as("one entry per container, init containers first").hasSize(5);
    assertThat(entries.get(0)).as("setup (init, no GPU)").isEmpty();
    List<Invariants.Use> warmup = entries.get(1);
    List<Invariants.Use> trainer = entries.get(2);
    assertThat(entries.get(3)).as("sidecar (no GPU)").isEmpty();
    List<Invariants.Use> evaluator = entries.get(4);

    List<String> all = List.of(gpu0.uuid(), gpu1.uuid());
    assertThat(warmup)
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.uuid()).isIn(all);
              assertThat(u.type()).isEqualTo("NVIDIA");
              assertThat(u.mem()).isEqualTo(2000);
              assertThat(u.cores()).isEqualTo(20);
            });
    assertThat(trainer)
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.uuid()).isIn(all);
              assertThat(u.mem()).isEqualTo(3000);
              assertThat(u.cores()).isEqualTo(30);
            });
    assertThat(evaluator)
        .hasSize(2)
        .allSatisfy(
            u -> {
              assertThat(u.mem()).isEqualTo(1000);
              assertThat(u.cores()).isEqualTo(10);
            });
    assertThat(evaluator).extracting(Invariants.Use::uuid).containsExactlyInAnyOrderElementsOf(all);
    assertThat(a.get(Annotations.VGPU_DEVICES_TO_ALLOCATE))
        .as("the agent empties every entry it served, keeping one entry per container")
        .isEqualTo(";;;;;");

    Map<String, ContainerAllocateResponse> responses =
        node.allocation(created.getMetadata().getUid());
    assertThat(responses)
        .as("one Allocate per container that asks for GPUs")
        .containsOnlyKeys("warmup", "trainer", "evaluator");
    assertAllocate(responses.get("warmup"), "warmup", warmup);
    assertAllocate(responses.get("trainer"), "trainer", trainer);
    assertAllocate(responses.get("evaluator"), "evaluator", evaluator);
    assertThat(node.allocateErrors()).isEmpty();
  }

  @Test
  void initContainerPeak_isNotAddedToTheAppContainers(KubernetesClient client, TestNamespace ns)
      throws Exception {
    GpuInfo gpu = GpuNode.gpu(0, 10000);
    GpuNode node = node(client, ns.name() + "-peak", gpu);

    // The init container needs 6000 MiB, the app containers 3000 + 3000: counted by their sum,
    // 12000 MiB would not fit on the 10000 MiB card; counted as max(init, sum of apps) it does.
    client
        .pods()
        .inNamespace(ns.name())
        .resource(
            pod(
                "peak",
                node.name(),
                List.of(container("prepare", 1, 6000, 20)),
                List.of(container("serve", 1, 3000, 20), container("log", 1, 3000, 20))))
        .create();
    Pod pod = awaitAllocated(client, ns, "peak");
    List<List<Invariants.Use>> entries =
        Invariants.parseDevices(
            pod.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED));
    assertThat(entries)
        .hasSize(3)
        .allSatisfy(
            c ->
                assertThat(c)
                    .singleElement()
                    .satisfies(u -> assertThat(u.uuid()).isEqualTo(gpu.uuid())));

    // What is left is 10000 - max(6000, 6000) = 4000 MiB: a 4000 MiB pod fits, a 4001 MiB one
    // waits.
    client
        .pods()
        .inNamespace(ns.name())
        .resource(pod("rest", node.name(), List.of(), List.of(container("rest", 1, 4000, 10))))
        .create();
    awaitAllocated(client, ns, "rest");
    client
        .pods()
        .inNamespace(ns.name())
        .resource(pod("over", node.name(), List.of(), List.of(container("over", 1, 1, 10))))
        .create();
    String message =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> {
                  Pod p = get(client, ns, "over");
                  return p.getStatus() == null
                      ? null
                      : p.getStatus().getConditions().stream()
                          .filter(
                              c ->
                                  "PodScheduled".equals(c.getType())
                                      && "False".equals(c.getStatus()))
                          .map(c -> c.getMessage())
                          .findFirst()
                          .orElse(null);
                },
                m -> m != null);
    System.out.println("e2e: pod after the init peak: " + message);
    assertThat(message).startsWith("0/").contains(" 1 CardInsufficientMemory");
    assertThat(node.allocateErrors()).isEmpty();
  }
}
