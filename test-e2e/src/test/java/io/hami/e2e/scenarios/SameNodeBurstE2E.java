package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A burst of pods that all want shares of one 8-GPU node, created at once: every pod is placed and
 * allocated, no GPU is over-committed, and each container gets exactly the devices its annotation
 * names. Only 4 slots of the 104 stay free, so the scheduler must pack the GPUs while bindings race
 * each other through the node lock. Reports the time from creation to all Running.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class SameNodeBurstE2E {
  private static final int PODS = 100;
  private static final int GPUS = 8;

  /** 13 per GPU: 104 slots for 100 pods. */
  private static final int SPLIT_COUNT = 13;

  private static final int GPU_MEMORY_MIB = 16000;

  /** 13 x 1200 = 15600 of 16000 MiB: memory also admits at most 13 pods per GPU. */
  private static final int POD_MEMORY_MIB = 1200;

  private static final int POD_CORES = 7;
  private static final Duration PATIENCE = Duration.ofMinutes(10);

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  static boolean placed(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    return a != null
        && "success".equals(a.get(Annotations.BIND_PHASE))
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase());
  }

  @Test
  void hundredPodsOnOneEightGpuNode_areAllPlacedWithoutOvercommit(
      KubernetesClient client, TestNamespace ns) throws Exception {
    List<GpuInfo> gpus = new ArrayList<>();
    for (int i = 0; i < GPUS; i++) {
      gpus.add(GpuNode.gpu(i, GPU_MEMORY_MIB));
    }
    GpuNode node = GpuNode.start(client, dir, ns.name() + "-burst", SPLIT_COUNT, gpus);
    nodes.add(node);

    ExecutorService creators = Executors.newFixedThreadPool(8);
    long start = System.nanoTime();
    Map<String, String> uids = new HashMap<>();
    try {
      List<Future<Pod>> created = new ArrayList<>();
      for (int i = 0; i < PODS; i++) {
        Pod pod =
            GpuPods.named(String.format(Locale.ROOT, "burst-%03d", i))
                .gpu(1, POD_MEMORY_MIB, POD_CORES)
                .on(node.name())
                .build();
        created.add(
            creators.submit(() -> client.pods().inNamespace(ns.name()).resource(pod).create()));
      }
      for (Future<Pod> f : created) {
        Pod p = f.get(2, TimeUnit.MINUTES);
        uids.put(p.getMetadata().getName(), p.getMetadata().getUid());
      }
    } finally {
      creators.shutdownNow();
    }
    List<Pod> pods =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> client.pods().inNamespace(ns.name()).list().getItems(),
                l -> l.size() == PODS && l.stream().allMatch(SameNodeBurstE2E::placed));
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    System.out.printf(
        Locale.ROOT,
        "SameNodeBurst: %d pods placed on one %d-GPU node in %.1f s%n",
        PODS,
        GPUS,
        elapsed.toMillis() / 1000.0);

    Map<String, Integer> perGpu = new HashMap<>();
    for (Pod p : pods) {
      String name = p.getMetadata().getName();
      assertThat(p.getSpec().getNodeName()).as(name).isEqualTo(node.name());
      assertThat(p.getMetadata().getUid()).as(name).isEqualTo(uids.get(name));
      List<List<Invariants.Use>> devices =
          Invariants.parseDevices(
              p.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED));
      assertThat(devices).as(name).hasSize(1);
      assertThat(devices.get(0)).as(name).hasSize(1);
      Invariants.Use use = devices.get(0).get(0);
      assertThat(use.mem()).as(name).isEqualTo(POD_MEMORY_MIB);
      assertThat(use.cores()).as(name).isEqualTo(POD_CORES);
      perGpu.merge(use.uuid(), 1, Integer::sum);

      ContainerAllocateResponse cuda = node.allocation(p.getMetadata().getUid()).get("cuda");
      assertThat(cuda).as("Allocate response of %s", name).isNotNull();
      assertThat(cuda.getEnvsMap())
          .as(name)
          .containsEntry("NVIDIA_VISIBLE_DEVICES", use.uuid())
          .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", POD_MEMORY_MIB + "m")
          .containsEntry("CUDA_DEVICE_SM_LIMIT", Integer.toString(POD_CORES));
    }
    assertThat(perGpu.keySet()).isSubsetOf(gpus.stream().map(GpuInfo::uuid).toList());
    assertThat(perGpu.values()).as("pods per GPU").allMatch(n -> n <= SPLIT_COUNT);
    assertThat(perGpu.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(PODS);
    assertThat(node.allocateErrors()).isEmpty();
    System.out.println("SameNodeBurst: pods per GPU " + perGpu.values());
  }
}
