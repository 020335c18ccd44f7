package io.hami.cmd.cluster.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.model.Annotations;
import io.hami.model.testing.MakeBoundPod;
import io.hami.nodeagent.NodeAgent;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.shm.SharedRegionLayout;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's /metrics: per-GPU capacity and pod usage, per-container usage from libvgpu regions.
 */
@EnableKubernetesMockClient(crud = true)
class MetricsIT {
  static final String NODE = "gpu-node-2";

  KubernetesClient client;
  @TempDir Path tmp;
  FakeKubelet kubelet;
  NodeAgent agent;
  String gpu0;

  @BeforeEach
  void start() throws Exception {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    kubelet = FakeKubelet.start(tmp.resolve("dp"));
    FakeNvml nvml = FakeNvml.fromSpec("2xNVIDIA-A10:24576MiB", NODE);
    gpu0 = nvml.devices().get(0).uuid();
    NodeAgentConfig config =
        NodeAgentConfig.builder(NODE)
            .deviceDir(tmp.resolve("dp"))
            .hookPath(tmp.resolve("hook"))
            .build();
    agent =
        NodeAgent.create(
            config,
            nvml,
            client,
            new InetSocketAddress("127.0.0.1", 0),
            Clock.fixed(Instant.ofEpochSecond(1705054800), ZoneOffset.UTC),
            new NodeAgent.Tuning(
                Duration.ofMillis(50),
                Duration.ofSeconds(1),
                () -> UUID.randomUUID().toString(),
                (c, node) ->
                    c.pods().inAnyNamespace().list().getItems().stream()
                        .filter(p -> node.equals(p.getSpec().getNodeName()))
                        .toList()));
    agent.start(Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() throws Exception {
    agent.stop(Duration.ofSeconds(10));
    kubelet.close();
  }

  @Test
  void reportsDevicesAndContainers() throws Exception {
    Pod running =
        MakeBoundPod.bound("train", NODE, ";")
            .annotation(
                Annotations.VGPU_DEVICES_ALLOCATED,
                gpu0 + ",NVIDIA,3000,30:;" + gpu0 + ",NVIDIA,1000,20:;")
            .phase("Running")
            .container("a", 1)
            .container("b", 1)
            .build();
    Pod done =
        MakeBoundPod.bound("done", NODE, ";")
            .annotation(Annotations.VGPU_DEVICES_ALLOCATED, gpu0 + ",NVIDIA,9000,90:;")
            .phase("Succeeded")
            .container("a", 1)
            .build();
    running = client.pods().inNamespace("default").resource(running).create();
    client.pods().inNamespace("default").resource(done).create();
    Path dir = tmp.resolve("hook/vgpu/containers/" + running.getMetadata().getUid() + "_a");
    Files.createDirectories(dir);
    Files.write(dir.resolve("x.cache"), region(gpu0, 3000L << 20, 1234L << 20, 37, 1705054790));
    Files.createDirectories(tmp.resolve("hook/vgpu/containers/gone-uid_a"));
    Files.write(tmp.resolve("hook/vgpu/containers/gone-uid_a/x.cache"), region(gpu0, 1, 1, 1, 1));

    String body =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + agent.metricsPort() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();

    String dev =
        "{device_index=\"0\",device_type=\"NVIDIA-A10\",device_uuid=\""
            + gpu0
            + "\",node=\""
            + NODE
            + "\"}";
    assertThat(body)
        .contains(
            "hami_node_gpu_memory_total_bytes" + dev + " 2.5769803776E10",
            "hami_node_gpu_memory_allocated_bytes" + dev + " 4.194304E9",
            "hami_node_gpu_cores_allocated" + dev + " 50.0",
            "hami_node_gpu_slots_used" + dev + " 2.0",
            "hami_node_gpu_slots_total" + dev + " 10.0",
            "hami_node_gpu_healthy" + dev + " 1.0");
    String ctr =
        "{container=\"a\",device_uuid=\""
            + gpu0
            + "\",namespace=\"default\",pod=\"train\",vdevice_index=\"0\"}";
    assertThat(body)
        .contains(
            "hami_vgpu_memory_used_bytes" + ctr + " 1.293942784E9",
            "hami_vgpu_memory_limit_bytes" + ctr + " 3.145728E9",
            "hami_container_device_utilization_ratio" + ctr + " 0.37",
            "hami_container_last_kernel_elapsed_seconds{container=\"a\",namespace=\"default\",pod=\"train\"} 10.0");
    assertThat(body).doesNotContain("gone-uid");
  }

  static byte[] region(String uuid, long limit, long used, int smUtil, long lastKernel) {
    ByteBuffer b =
        ByteBuffer.allocate((int) SharedRegionLayout.REGION_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(SharedRegionLayout.H_MAGIC, SharedRegionLayout.MAGIC);
    b.putShort(SharedRegionLayout.H_VERSION_MAJOR, (short) 1);
    b.putLong(SharedRegionLayout.H_REGION_SIZE, SharedRegionLayout.REGION_SIZE);
    b.putInt(SharedRegionLayout.H_DEVICE_COUNT, 1);
    b.putLong(SharedRegionLayout.H_LAST_KERNEL_TIME, lastKernel);
    int d = SharedRegionLayout.DEVICE_RECORD_OFFSET;
    b.put(d, uuid.getBytes(StandardCharsets.UTF_8));
    b.putLong(d + SharedRegionLayout.D_MEM_LIMIT, limit);
    b.putLong(d + SharedRegionLayout.D_MEM_USED, used);
    b.putInt(d + SharedRegionLayout.D_SM_UTIL, smUtil);
    // What the agent reports as used is the sum over live slots: one process holds it all.
    int slot = SharedRegionLayout.HEADER_SIZE;
    b.putInt(slot + SharedRegionLayout.S_PID, 42);
    b.putLong(slot + SharedRegionLayout.S_USED, used);
    return b.array();
  }
}
