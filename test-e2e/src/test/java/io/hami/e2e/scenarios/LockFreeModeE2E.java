package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.framework.config.ConfigException;
import io.hami.model.Annotations;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.nvml.GpuInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lock mode {@code scheduler} on the real API server with the real node agent: the scheduler
 * refuses to start while a node registers devices without {@code hami.io/node-lock-free}; on our
 * agent's node a burst of pods binds without a single node lock, each container getting exactly the
 * devices its annotation names.
 */
@ExtendWith(ControlPlaneExtension.class)
class LockFreeModeE2E {
  private static final String SCHEDULER = "hami-lock-free";
  private static final int PODS = 40;
  private static final int GPUS = 4;
  private static final int SPLIT_COUNT = 10;
  private static final int POD_MEMORY_MIB = 1500;
  private static final int POD_CORES = 10;
  private static final Duration PATIENCE = Duration.ofMinutes(5);

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();
  private final List<String> bareNodes = new ArrayList<>();

  @AfterEach
  void stop(KubernetesClient client, TestNamespace ns) throws Exception {
    bareNodes.forEach(n -> client.nodes().withName(n).delete());
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  /**
   * The shipped configuration with its profile named {@link #SCHEDULER}, in lock mode scheduler.
   */
  private static Path lockFreeConfig() throws Exception {
    String shipped = Files.readString(Scheduler.shippedConfig(), StandardCharsets.UTF_8);
    String profile = "  - schedulerName: hami-scheduler\n";
    String mode = "          mode: node\n";
    assertThat(shipped).as("shipped configuration").contains(profile, mode);
    String config =
        shipped
            .replace(profile, "  - schedulerName: " + SCHEDULER + "\n")
            .replace(mode, "          mode: scheduler\n");
    Path file = dir.resolve("lock-free.yaml");
    Files.writeString(file, config, StandardCharsets.UTF_8);
    return file;
  }

  private static boolean locking(Node n) {
    Map<String, String> a = n.getMetadata().getAnnotations();
    return a != null
        && a.keySet().stream()
            .anyMatch(k -> k.startsWith("hami.io/node-") && k.endsWith("-register"))
        && !"true".equals(a.get(Annotations.NODE_LOCK_FREE));
  }

  @Test
  void burstOnOurAgentsNode_bindsWithoutANodeLock_andRefusesToStartBesideALockingNode(
      KubernetesClient client, TestNamespace ns) throws Exception {
    Path config = lockFreeConfig();
    // Nodes other scenarios registered are deleted by their teardown; wait for that.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.nodes().list().getItems().stream().noneMatch(LockFreeModeE2E::locking));

    String hamiNode = ns.name() + "-hami-plugin";
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(hamiNode)
                .addToAnnotations(Annotations.NODE_NVIDIA_REGISTER, "[]")
                .endMetadata()
                .build())
        .create();
    bareNodes.add(hamiNode);
    assertThatThrownBy(() -> Scheduler.start(client, config, SCHEDULER).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("pluginConfig[nodelock]")
        .hasMessageContaining(hamiNode)
        .hasMessageContaining(Annotations.NODE_LOCK_FREE)
        .hasMessageContaining("mode: node");
    client.nodes().withName(hamiNode).delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.nodes().withName(hamiNode).get() == null);

    List<GpuInfo> gpus = new ArrayList<>();
    for (int i = 0; i < GPUS; i++) {
      gpus.add(GpuNode.gpu(i, 16000));
    }
    GpuNode node = GpuNode.start(client, dir, ns.name() + "-lf", SPLIT_COUNT, gpus);
    nodes.add(node);
    await()
        .atMost(PATIENCE)
        .until(
            () -> client.nodes().withName(node.name()).get(),
            n ->
                n != null
                    && "true"
                        .equals(n.getMetadata().getAnnotations().get(Annotations.NODE_LOCK_FREE)));

    List<String> locksSeen = new CopyOnWriteArrayList<>();
    try (Watch w =
            client
                .nodes()
                .withName(node.name())
                .watch(
                    new Watcher<Node>() {
                      @Override
                      public void eventReceived(Action action, Node n) {
                        String lock = n.getMetadata().getAnnotations().get(Annotations.MUTEX_LOCK);
                        if (lock != null) {
                          locksSeen.add(lock);
                        }
                      }

                      @Override
                      public void onClose(WatcherException cause) {}
                    });
        Scheduler scheduler = Scheduler.start(client, config, SCHEDULER)) {
      long start = System.nanoTime();
      Map<String, String> uids = new HashMap<>();
      for (int i = 0; i < PODS; i++) {
        Pod pod =
            GpuPods.named(String.format(Locale.ROOT, "lf-%02d", i))
                .gpu(1, POD_MEMORY_MIB, POD_CORES)
                .on(node.name())
                .schedulerName(SCHEDULER)
                .build();
        Pod created = client.pods().inNamespace(ns.name()).resource(pod).create();
        uids.put(created.getMetadata().getName(), created.getMetadata().getUid());
      }
      List<Pod> pods =
          await()
              .atMost(PATIENCE)
              .pollInterval(Duration.ofMillis(250))
              .until(
                  () -> client.pods().inNamespace(ns.name()).list().getItems(),
                  l -> l.size() == PODS && l.stream().allMatch(SameNodeBurstE2E::placed));
      System.out.printf(
          Locale.ROOT,
          "e2e: lock mode scheduler: %d pods placed on one %d-GPU node in %d ms, node locks seen %d%n",
          PODS,
          GPUS,
          Duration.ofNanos(System.nanoTime() - start).toMillis(),
          locksSeen.size());

      assertThat(locksSeen).as("node locks written").isEmpty();
      Map<String, Integer> perGpu = new HashMap<>();
      for (Pod p : pods) {
        String name = p.getMetadata().getName();
        assertThat(p.getMetadata().getUid()).as(name).isEqualTo(uids.get(name));
        List<List<Invariants.Use>> devices =
            Invariants.parseDevices(
                p.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED));
        Invariants.Use use = devices.get(0).get(0);
        perGpu.merge(use.uuid(), 1, Integer::sum);
        ContainerAllocateResponse cuda = node.allocation(p.getMetadata().getUid()).get("cuda");
        assertThat(cuda).as("Allocate response of %s", name).isNotNull();
        assertThat(cuda.getEnvsMap())
            .as("what %s's container got is what its annotation names", name)
            .containsEntry("NVIDIA_VISIBLE_DEVICES", use.uuid())
            .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", POD_MEMORY_MIB + "m");
      }
      assertThat(perGpu.values()).as("pods per GPU").allMatch(n -> n <= SPLIT_COUNT);
      assertThat(node.allocateErrors()).isEmpty();
    }
  }
}
