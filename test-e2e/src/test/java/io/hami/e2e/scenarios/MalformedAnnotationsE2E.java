package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed register and pod annotations: each is logged and reported where its owner looks (a
 * Warning Event on the node or pod, or the pod's PodScheduled condition) naming the field and the
 * value, the scheduler keeps running, and every other node and pod is unaffected.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class MalformedAnnotationsE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String GROUP = "e2e.hami.io/group";
  private static final String BAD_ALLOCATION_POD = "bad-allocation";
  private static final String GARBAGE_REGISTER = "[{\"id\":\"GPU-broken\",\"count\":\"ten\"";

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();
  private final List<String> bareNodes = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    try {
      // The invariant checker rightly flags a pod whose allocation cannot be read: made on purpose
      // here.
      client.pods().inNamespace(ns.name()).withName(BAD_ALLOCATION_POD).withGracePeriod(0).delete();
      await().atMost(PATIENCE).until(() -> get(client, ns, BAD_ALLOCATION_POD) == null);
      Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
    } finally {
      bareNodes.forEach(n -> client.nodes().withName(n).delete());
      bareNodes.clear();
    }
  }

  private GpuNode node(KubernetesClient client, String name, String group) throws Exception {
    GpuNode n =
        GpuNode.start(
            client,
            dir,
            FakeNode.named(name).label(GROUP, group),
            10,
            List.of(GpuNode.gpu(0, 16000), GpuNode.gpu(1, 16000)));
    nodes.add(n);
    return n;
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  private static Pod create(KubernetesClient client, TestNamespace ns, Pod pod) {
    return client.pods().inNamespace(ns.name()).resource(pod).create();
  }

  private static Pod awaitRunning(KubernetesClient client, TestNamespace ns, String name) {
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

  private static PodCondition awaitUnschedulable(
      KubernetesClient client, TestNamespace ns, String name) {
    PodCondition c =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> scheduled(get(client, ns, name)),
                o -> o.isPresent() && "False".equals(o.get().getStatus()))
            .orElseThrow();
    System.out.println("e2e: " + name + " stays pending: " + c.getMessage());
    assertThat(get(client, ns, name).getSpec().getNodeName()).as("%s is not bound", name).isNull();
    return c;
  }

  private static Optional<PodCondition> scheduled(Pod pod) {
    return pod.getStatus() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()))
            .findFirst();
  }

  /** Waits for a Warning Event about {@code name} in {@code namespace} with {@code reason}. */
  private static Event awaitWarning(
      KubernetesClient client, String namespace, String name, String reason) {
    Event e =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(200))
            .until(
                () ->
                    client.v1().events().inNamespace(namespace).list().getItems().stream()
                        .filter(
                            ev ->
                                name.equals(ev.getInvolvedObject().getName())
                                    && reason.equals(ev.getReason()))
                        .findFirst(),
                Optional::isPresent)
            .orElseThrow();
    System.out.println(
        "e2e: event on " + name + ": " + e.getType() + " " + e.getReason() + ": " + e.getMessage());
    assertThat(e.getType()).isEqualTo("Warning");
    return e;
  }

  private static List<Event> warnings(
      KubernetesClient client, String namespace, String name, String reason) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(
            ev -> name.equals(ev.getInvolvedObject().getName()) && reason.equals(ev.getReason()))
        .toList();
  }

  private static String register(String uuid) {
    return "[{\"id\":\""
        + uuid
        + "\",\"count\":10,\"devmem\":16000,\"devcore\":100,"
        + "\"type\":\"NVIDIA-Tesla T4\",\"mode\":\"hami-core\",\"health\":true}]";
  }

  @Test
  void garbageRegister_warnsOnTheNode_othersKeepScheduling_andAFixMakesItSchedulable(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String group = "register";
    String broken = ns.name() + "-broken";
    FakeNode.named(broken).label(GROUP, group).resource("nvidia.com/gpu", "10").register(client);
    bareNodes.add(broken);
    client
        .nodes()
        .withName(broken)
        .edit(
            n -> {
              Map<String, String> a = new HashMap<>();
              a.put(Annotations.NODE_NVIDIA_REGISTER, GARBAGE_REGISTER);
              n.getMetadata().setAnnotations(a);
              return n;
            });
    GpuNode healthy = node(client, ns.name() + "-healthy", group);

    Event warning = awaitWarning(client, "default", broken, "InvalidDeviceAnnotation");
    assertThat(warning.getMessage())
        .contains(Annotations.NODE_NVIDIA_REGISTER + "=\"" + GARBAGE_REGISTER + "\"");
    assertThat(warning.getInvolvedObject().getKind()).isEqualTo("Node");

    for (int i = 0; i < 3; i++) {
      create(client, ns, GpuPods.named("ok-" + i).gpu(1, 2000, 10).selector(GROUP, group).build());
      assertThat(awaitRunning(client, ns, "ok-" + i).getSpec().getNodeName())
          .isEqualTo(healthy.name());
    }
    create(client, ns, GpuPods.named("pinned").gpu(1, 2000, 10).on(broken).build());
    assertThat(awaitUnschedulable(client, ns, "pinned").getMessage())
        .contains("1 NodeAnnotationInvalid");

    String fixed = "GPU-" + UUID.randomUUID();
    client
        .nodes()
        .withName(broken)
        .edit(
            n -> {
              n.getMetadata()
                  .getAnnotations()
                  .put(Annotations.NODE_NVIDIA_REGISTER, register(fixed));
              return n;
            });
    // No agent runs there, so the pod is bound and annotated but never allocated.
    Pod pinned =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> get(client, ns, "pinned"), p -> broken.equals(p.getSpec().getNodeName()));
    assertThat(
            Invariants.parseDevices(
                pinned.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED)))
        .singleElement()
        .satisfies(c -> assertThat(c).extracting(Invariants.Use::uuid).containsExactly(fixed));
    assertThat(warnings(client, "default", broken, "InvalidDeviceAnnotation"))
        .as("one warning per breakage")
        .hasSize(1);
  }

  @Test
  void garbageRegisterOnAnAgentNode_isReported_andTheAgentRepairsIt(
      KubernetesClient client, TestNamespace ns) throws Exception {
    GpuNode node = node(client, ns.name() + "-repaired", "repaired");
    String good = node.annotations().get(Annotations.NODE_NVIDIA_REGISTER);
    client
        .nodes()
        .withName(node.name())
        .edit(
            n -> {
              n.getMetadata()
                  .getAnnotations()
                  .put(Annotations.NODE_NVIDIA_REGISTER, GARBAGE_REGISTER);
              return n;
            });

    Event warning = awaitWarning(client, "default", node.name(), "InvalidDeviceAnnotation");
    assertThat(warning.getMessage()).contains(Annotations.NODE_NVIDIA_REGISTER);
    await()
        .atMost(PATIENCE)
        .until(() -> good.equals(node.annotations().get(Annotations.NODE_NVIDIA_REGISTER)));

    create(client, ns, GpuPods.named("after-repair").gpu(1, 2000, 10).on(node.name()).build());
    assertThat(awaitRunning(client, ns, "after-repair").getSpec().getNodeName())
        .isEqualTo(node.name());
  }

  @Test
  void malformedPodAnnotations_areReportedOnThePod_andOtherPodsStillSchedule(
      KubernetesClient client, TestNamespace ns) throws Exception {
    GpuNode node = node(client, ns.name() + "-pods", "pods");

    // A pod already on the node whose allocation annotation cannot be read.
    String badAllocation = "GPU-x,NVIDIA,lots,10:;";
    create(
        client,
        ns,
        new PodBuilder()
            .withNewMetadata()
            .withName(BAD_ALLOCATION_POD)
            .withAnnotations(
                Map.of(
                    Annotations.VGPU_NODE,
                    node.name(),
                    Annotations.VGPU_DEVICES_ALLOCATED,
                    badAllocation,
                    Annotations.BIND_PHASE,
                    "success"))
            .endMetadata()
            .withNewSpec()
            .withNodeName(node.name())
            .withTerminationGracePeriodSeconds(1L)
            .addNewContainer()
            .withName("app")
            .withImage("busybox")
            .endContainer()
            .endSpec()
            .build());
    Event alloc = awaitWarning(client, ns.name(), BAD_ALLOCATION_POD, "InvalidPodAnnotation");
    assertThat(alloc.getMessage())
        .startsWith(Annotations.VGPU_DEVICES_ALLOCATED + "=\"" + badAllocation + "\"")
        .contains("usedmem")
        .contains("not counted");

    Map<String, String[]> lenient =
        Map.of(
            "bad-gpu-policy", new String[] {Annotations.GPU_SCHEDULER_POLICY, "bin-pack"},
            "bad-node-policy", new String[] {Annotations.NODE_SCHEDULER_POLICY, "Spreading"},
            "bad-numa-bind", new String[] {Annotations.NVIDIA_NUMA_BIND, "yes"});
    lenient.forEach(
        (name, kv) ->
            create(
                client,
                ns,
                GpuPods.named(name)
                    .gpu(1, 1000, 10)
                    .on(node.name())
                    .annotation(kv[0], kv[1])
                    .build()));
    for (Map.Entry<String, String[]> e : lenient.entrySet()) {
      assertThat(awaitRunning(client, ns, e.getKey()).getSpec().getNodeName())
          .as("%s is placed as HAMi reads the value", e.getKey())
          .isEqualTo(node.name());
      Event w = awaitWarning(client, ns.name(), e.getKey(), "InvalidPodAnnotation");
      assertThat(w.getMessage()).startsWith(e.getValue()[0] + "=\"" + e.getValue()[1] + "\"");
    }

    create(
        client,
        ns,
        GpuPods.named("bad-weights")
            .gpu(1, 1000, 10)
            .on(node.name())
            .annotation(Annotations.DEVICE_SCORING_WEIGHTS, "core=high")
            .build());
    assertThat(awaitUnschedulable(client, ns, "bad-weights").getMessage())
        .contains(Annotations.DEVICE_SCORING_WEIGHTS + "=\"core=high\"");

    Pod byteUnits =
        new PodBuilder(GpuPods.named("bad-gpumem").gpu(1, 1000, 10).on(node.name()).build())
            .editSpec()
            .editFirstContainer()
            .editResources()
            .addToLimits("nvidia.com/gpumem", new Quantity("16Gi"))
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    create(client, ns, byteUnits);
    assertThat(awaitUnschedulable(client, ns, "bad-gpumem").getMessage())
        .contains("nvidia.com/gpumem")
        .contains("16Gi");

    create(
        client,
        ns,
        GpuPods.named("bad-uuid")
            .gpu(1, 1000, 10)
            .on(node.name())
            .annotation(Annotations.NVIDIA_USE_GPUUUID, "not-a-uuid")
            .build());
    assertThat(awaitUnschedulable(client, ns, "bad-uuid").getMessage())
        .contains("1 CardUuidMismatch");

    Pod ok = create(client, ns, GpuPods.named("ok").gpu(1, 1000, 10).on(node.name()).build());
    assertThat(awaitRunning(client, ns, "ok").getSpec().getNodeName()).isEqualTo(node.name());
    assertThat(node.allocation(ok.getMetadata().getUid())).containsKey("cuda");
    assertThat(warnings(client, ns.name(), BAD_ALLOCATION_POD, "InvalidPodAnnotation"))
        .as("reported once although the pod was read on every update")
        .hasSize(1);
  }
}
