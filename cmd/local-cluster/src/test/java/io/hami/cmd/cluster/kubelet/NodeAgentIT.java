package io.hami.cmd.cluster.kubelet;

import static io.hami.cmd.cluster.kubelet.AgentFixture.GPU0;
import static io.hami.cmd.cluster.kubelet.AgentFixture.GPU1;
import static io.hami.cmd.cluster.kubelet.AgentFixture.LOCK_TIME;
import static io.hami.cmd.cluster.kubelet.AgentFixture.NODE;
import static io.hami.cmd.cluster.kubelet.AgentFixture.RESOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.hami.model.Annotations;
import io.hami.model.testing.MakeBoundPod;
import io.hami.nodeagent.NodeAgent;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.Device;
import io.hami.nodeagent.deviceplugin.v1beta1.Mount;
import io.hami.nodeagent.deviceplugin.v1beta1.RegisterRequest;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.publish.NodeRegistrar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent against an in-process kubelet on real Unix sockets and the fabric8 CRUD mock server
 * holding the node and pods, as the scheduler leaves them after Bind.
 */
@EnableKubernetesMockClient(crud = true)
class NodeAgentIT {
  KubernetesClient client;
  @TempDir Path tmp;
  Path deviceDir;
  Path hook;
  FakeNvml nvml;
  FakeKubelet kubelet;
  NodeAgent agent;
  final AtomicInteger caches = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    AgentFixture.createNode(client);
    deviceDir = tmp.resolve("device-plugins");
    hook = tmp.resolve("hook");
    kubelet = FakeKubelet.start(deviceDir, client, NODE);
    nvml = AgentFixture.twoT4s();
    agent =
        NodeAgent.create(
            AgentFixture.config(deviceDir, hook),
            nvml,
            client,
            null,
            Clock.fixed(Instant.parse("2026-08-21T08:20:39Z"), ZoneOffset.UTC),
            AgentFixture.tuning(caches));
    agent.start(Duration.ofSeconds(30));
    kubelet.awaitDevices(RESOURCE, d -> d.size() == 8, Duration.ofSeconds(20));
  }

  @AfterEach
  void stop() throws Exception {
    agent.stop(Duration.ofSeconds(10));
    kubelet.close();
  }

  @Test
  void registersWithKubeletAndPublishesTheNode() {
    RegisterRequest reg = kubelet.registrations().get(0);
    assertThat(reg.getVersion()).isEqualTo("v1beta1");
    assertThat(reg.getEndpoint()).isEqualTo("nvidia-gpu.sock");
    assertThat(reg.getResourceName()).isEqualTo(RESOURCE);
    assertThat(reg.getOptions().getGetPreferredAllocationAvailable()).isFalse();
    assertThat(kubelet.options(RESOURCE).getGetPreferredAllocationAvailable()).isTrue();

    assertThat(kubelet.devices(RESOURCE))
        .extracting(Device::getID)
        .containsExactly(
            GPU0 + "-0",
            GPU0 + "-1",
            GPU0 + "-2",
            GPU0 + "-3",
            GPU1 + "-0",
            GPU1 + "-1",
            GPU1 + "-2",
            GPU1 + "-3");
    assertThat(kubelet.devices(RESOURCE)).extracting(Device::getHealth).containsOnly("Healthy");
    assertThat(kubelet.devices(RESOURCE)).allMatch(d -> !d.hasTopology());

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(nodeAnnotation(Annotations.NODE_NVIDIA_REGISTER))
                    .isEqualTo(
                        "[{\"id\":\""
                            + GPU0
                            + "\",\"count\":4,\"devmem\":15360,\"devcore\":100,"
                            + "\"type\":\"NVIDIA-Tesla T4\",\"mode\":\"hami-core\",\"health\":true},"
                            + "{\"id\":\""
                            + GPU1
                            + "\",\"index\":1,\"count\":4,\"devmem\":15360,\"devcore\":100,"
                            + "\"type\":\"NVIDIA-Tesla T4\",\"numa\":1,\"mode\":\"hami-core\",\"health\":true}]"));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(node().getStatus().getAllocatable().get(RESOURCE).getAmount())
                    .isEqualTo("8"));
  }

  @Test
  void agentThatStops_leavesItsDevicesUnhealthyWithAllocatableZero_untilAnotherRegisters()
      throws Exception {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(node().getStatus().getAllocatable().get(RESOURCE).getAmount())
                    .isEqualTo("8"));

    agent.stop(Duration.ofSeconds(10));

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(node().getStatus().getAllocatable().get(RESOURCE).getAmount())
                  .isEqualTo("0");
              assertThat(node().getStatus().getCapacity().get(RESOURCE).getAmount()).isEqualTo("8");
            });
    assertThat(kubelet.devices(RESOURCE))
        .hasSize(8)
        .extracting(Device::getHealth)
        .containsOnly("Unhealthy");
    Pod pod =
        create(
            MakeBoundPod.bound("p-stopped", NODE, GPU0 + ",NVIDIA,3000,50:;")
                .container("main", 1)
                .build());
    assertThatThrownBy(() -> kubelet.allocatePod(RESOURCE, pod))
        .hasMessageContaining("0 free devices");

    agent =
        NodeAgent.create(
            AgentFixture.config(deviceDir, hook),
            new FakeNvml(nvml.devices()),
            client,
            null,
            Clock.systemUTC(),
            new NodeAgent.Tuning(
                Duration.ofMillis(50),
                Duration.ofMillis(200),
                () -> "cache-" + caches.incrementAndGet(),
                (c, node) -> List.of()));
    agent.start(Duration.ofSeconds(30));

    kubelet.awaitDevices(
        RESOURCE,
        d -> d.stream().allMatch(x -> "Healthy".equals(x.getHealth())),
        Duration.ofSeconds(20));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(node().getStatus().getAllocatable().get(RESOURCE).getAmount())
                    .isEqualTo("8"));
  }

  @Test
  void registerIsPatchedOnlyWhenItChanges() throws Exception {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> nodeAnnotation(Annotations.NODE_NVIDIA_REGISTER) != null);
    String rv = node().getMetadata().getResourceVersion();
    assertThat(agent.registrar().registerOnce()).isEqualTo(NodeRegistrar.Outcome.UNCHANGED);
    assertThat(node().getMetadata().getResourceVersion()).isEqualTo(rv);
  }

  /**
   * Registered with the kubelet (allocatable above 0), the agent leaves the scheduler's request as
   * it is, as HAMi's v2.8+ device plugin does; RegistrarAndPreferenceIT has the answer it gives
   * while allocatable is 0.
   */
  @Test
  void leavesTheSchedulersHandshakeAloneOnceTheKubeletCountsItsDevices() throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(node().getStatus().getAllocatable().get(RESOURCE).getAmount())
                    .isNotEqualTo("0"));
    patchNode(Annotations.NODE_HANDSHAKE, "Requesting_2026-08-21 08:20:39");
    agent.registrar().registerOnce();
    assertThat(nodeAnnotation(Annotations.NODE_HANDSHAKE))
        .isEqualTo("Requesting_2026-08-21 08:20:39");
  }

  @Test
  void allocatesAPodAsTheSchedulerAnnotatedIt() throws Exception {
    Pod pod =
        create(
            MakeBoundPod.bound("p1", NODE, GPU0 + ",NVIDIA,3000,50:;")
                .container("main", 1)
                .build());
    lock("default", "p1");

    Map<String, ContainerAllocateResponse> r = kubelet.allocatePod(RESOURCE, pod);

    ContainerAllocateResponse main = r.get("main");
    String vgpu = hook.resolve("vgpu").toString();
    assertThat(main.getEnvsMap())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "NVIDIA_VISIBLE_DEVICES",
                GPU0,
                "CUDA_DEVICE_MEMORY_LIMIT_0",
                "3000m",
                "CUDA_DEVICE_SM_LIMIT",
                "50",
                "CUDA_DEVICE_MEMORY_SHARED_CACHE",
                vgpu + "/cache-1.cache"));
    Path dir = hook.resolve("vgpu/containers/" + pod.getMetadata().getUid() + "_main");
    assertThat(main.getMountsList())
        .containsExactly(
            mount(vgpu, dir.toString(), true),
            mount(vgpu + "/libvgpu.so", vgpu + "/libvgpu.so", true),
            mount(vgpu + "/cache-1.cache", dir + "/cache-1.cache", false),
            mount("/etc/vgpu/limits", dir + "/limits", true),
            mount("/tmp/vgpulock", "/tmp/vgpulock", false),
            mount("/etc/ld.so.preload", vgpu + "/ld.so.preload", true));
    assertThat(main.getDevicesList()).isEmpty();
    assertThat(Files.isDirectory(dir)).isTrue();
    assertThat(Files.readString(dir.resolve("limits")))
        .contains("memory_limit_0=3145728000\n", "sm_limit=50\n", "priority=1\n");

    Pod after = pod("p1");
    assertThat(after.getMetadata().getAnnotations())
        .containsEntry(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";")
        .containsEntry(Annotations.VGPU_DEVICES_ALLOCATED, GPU0 + ",NVIDIA,3000,50:;")
        .containsEntry(Annotations.BIND_PHASE, "success");
    assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).isNull();
  }

  @Test
  void priorityLimit_reachesTheLimitsFileAndTheEnv() throws Exception {
    Pod pod =
        create(
            withPriority(
                MakeBoundPod.bound("prio", NODE, GPU0 + ",NVIDIA,1024,20:;")
                    .container("c", 1)
                    .build(),
                "0"));
    lock("default", "prio");

    ContainerAllocateResponse c = kubelet.allocatePod(RESOURCE, pod).get("c");

    assertThat(c.getEnvsMap()).containsEntry("CUDA_TASK_PRIORITY", "0");
    Path limits = hook.resolve("vgpu/containers/" + pod.getMetadata().getUid() + "_c/limits");
    assertThat(Files.readString(limits))
        .contains("memory_limit_0=1073741824\n", "sm_limit=20\n", "priority=0\n");
  }

  @Test
  void malformedPriority_failsTheAllocationNamingTheValue() {
    Pod pod =
        create(
            withPriority(
                MakeBoundPod.bound("bad", NODE, GPU0 + ",NVIDIA,1024,20:;")
                    .container("c", 1)
                    .build(),
                "2"));
    lock("default", "bad");

    assertThatThrownBy(() -> kubelet.allocatePod(RESOURCE, pod))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("container c: nvidia.com/priority=2 must be 0 (high) or 1 (low)");
    assertThat(pod("bad").getMetadata().getAnnotations())
        .containsEntry(Annotations.BIND_PHASE, "failed");
  }

  private static Pod withPriority(Pod pod, String priority) {
    pod.getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .getLimits()
        .put("nvidia.com/priority", new Quantity(priority));
    return pod;
  }

  @Test
  void podWhoseAllocateFails_keepsNoKubeletDevice() {
    // Eight devices, no lock on the node: the agent cannot tell whose pod this is and refuses.
    Pod refused =
        create(
            MakeBoundPod.bound("refused", NODE, GPU0 + ",NVIDIA,3000,50:;")
                .container("main", 8)
                .build());
    assertThatThrownBy(() -> kubelet.allocatePod(RESOURCE, refused))
        .isInstanceOf(StatusRuntimeException.class);

    // Kubelet rejected that pod, so every device is free for the next one.
    Pod next =
        create(
            MakeBoundPod.bound("next", NODE, GPU1 + ",NVIDIA,1024,25:;").container("c", 1).build());
    lock("default", "next");
    assertThat(kubelet.allocatePod(RESOURCE, next).get("c").getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", GPU1);
  }

  @Test
  void allocatesInitAndAppContainersInOrder() throws Exception {
    String value =
        GPU1 + ",NVIDIA,1000,10:;;" + GPU0 + ",NVIDIA,2000,20:" + GPU1 + ",NVIDIA,4000,30:;";
    Pod pod =
        create(
            MakeBoundPod.bound("p2", NODE, value)
                .initContainer("init", 1)
                .container("sidecar", 0)
                .container("train", 2)
                .build());
    lock("default", "p2");

    Map<String, ContainerAllocateResponse> r = kubelet.allocatePod(RESOURCE, pod);

    assertThat(r.keySet()).containsExactly("init", "train");
    assertThat(r.get("init").getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", GPU1)
        .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "1000m")
        .containsEntry("CUDA_DEVICE_SM_LIMIT", "10");
    assertThat(r.get("train").getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", GPU0 + "," + GPU1)
        .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "2000m")
        .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_1", "4000m")
        .containsEntry("CUDA_DEVICE_SM_LIMIT", "20")
        .doesNotContainKey("CUDA_DEVICE_MEMORY_LIMIT_2");
    assertThat(r.get("train").getMountsList())
        .contains(
            mount(
                hook.resolve("vgpu").toString(),
                hook.resolve("vgpu/containers/" + pod.getMetadata().getUid() + "_train").toString(),
                true));
    assertThat(pod("p2").getMetadata().getAnnotations())
        .containsEntry(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";;;")
        .containsEntry(Annotations.BIND_PHASE, "success");
    assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).isNull();
  }

  @Test
  void keepsTheLockUntilEveryContainerIsServed() throws Exception {
    Pod pod =
        create(
            MakeBoundPod.bound("p3", NODE, GPU0 + ",NVIDIA,1000,10:;" + GPU1 + ",NVIDIA,1000,10:;")
                .container("a", 1)
                .container("b", 1)
                .build());
    lock("default", "p3");

    kubelet.allocate(RESOURCE, List.of(List.of(GPU0 + "-0")));

    assertThat(pod("p3").getMetadata().getAnnotations())
        .containsEntry(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";" + GPU1 + ",NVIDIA,1000,10:;")
        .containsEntry(Annotations.BIND_PHASE, "allocating");
    assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).isEqualTo(LOCK_TIME + ",default,p3");

    kubelet.allocate(RESOURCE, List.of(List.of(GPU1 + "-0")));

    assertThat(pod("p3").getMetadata().getAnnotations())
        .containsEntry(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";;")
        .containsEntry(Annotations.BIND_PHASE, "success");
    assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).isNull();
    assertThat(pod).isNotNull();
  }

  @Test
  void findsThePendingPodWithoutALock() throws Exception {
    create(MakeBoundPod.bound("nolock", NODE, GPU0 + ",NVIDIA,500,0:;").container("c", 1).build());

    var r = kubelet.allocate(RESOURCE, List.of(List.of(GPU0 + "-2")));

    assertThat(r.getContainerResponses(0).getEnvsMap()).containsEntry("CUDA_DEVICE_SM_LIMIT", "0");
    assertThat(pod("nolock").getMetadata().getAnnotations())
        .containsEntry(Annotations.BIND_PHASE, "success");
  }

  @Test
  void noPendingPodIsAClearError() {
    create(
        MakeBoundPod.bound("elsewhere", "other-node", GPU0 + ",NVIDIA,500,0:;")
            .container("c", 1)
            .build());

    assertThatThrownBy(() -> kubelet.allocate(RESOURCE, List.of(List.of(GPU0 + "-0"))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo("no binding pod found on node " + NODE);
            });
    assertGoodPodStillSucceeds("after-none");
  }

  @Test
  void deviceCountMismatchFailsThePod() {
    create(
        MakeBoundPod.bound("mismatch", NODE, GPU0 + ",NVIDIA,500,0:" + GPU1 + ",NVIDIA,500,0:;")
            .container("c", 2)
            .build());
    lock("default", "mismatch");

    assertThatThrownBy(() -> kubelet.allocate(RESOURCE, List.of(List.of(GPU0 + "-0"))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .isEqualTo(
                        "allocate for pod default/mismatch failed: device number not matched: "
                            + "container entry 0 has 2 device(s), kubelet asked for 1"));
    assertFailedAndUnlocked("mismatch");
    assertGoodPodStillSucceeds("after-mismatch");
  }

  @Test
  void malformedAnnotationFailsThePod() {
    create(MakeBoundPod.bound("bad", NODE, GPU0 + ",NVIDIA,500:;").container("c", 1).build());
    lock("default", "bad");

    assertThatThrownBy(() -> kubelet.allocate(RESOURCE, List.of(List.of(GPU0 + "-0"))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .startsWith(
                        "allocate for pod default/bad failed: malformed annotation "
                            + Annotations.VGPU_DEVICES_TO_ALLOCATE
                            + "='"
                            + GPU0
                            + ",NVIDIA,500:;'"));
    assertFailedAndUnlocked("bad");
    assertGoodPodStillSucceeds("after-bad");
  }

  @Test
  void lockHeldByAnotherPendingPodServesThatPod() {
    create(MakeBoundPod.bound("waiting", NODE, GPU1 + ",NVIDIA,500,0:;").container("c", 1).build());
    create(
        MakeBoundPod.bound("holder", NODE, GPU0 + ",NVIDIA,500,0:" + GPU1 + ",NVIDIA,500,0:;")
            .container("c", 2)
            .build());
    lock("default", "holder");

    assertThatThrownBy(() -> kubelet.allocate(RESOURCE, List.of(List.of(GPU1 + "-1"))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .startsWith(
                        "allocate for pod default/holder failed: device number not matched"));
    assertFailedAndUnlocked("holder");

    kubelet.allocate(RESOURCE, List.of(List.of(GPU1 + "-1")));
    assertThat(pod("waiting").getMetadata().getAnnotations())
        .containsEntry(Annotations.BIND_PHASE, "success");
  }

  @Test
  void unparsableLockIsAClearErrorAndTheLockStays() {
    create(MakeBoundPod.bound("p", NODE, GPU0 + ",NVIDIA,500,0:;").container("c", 1).build());
    patchNode(Annotations.MUTEX_LOCK, "yesterday,default");

    assertThatThrownBy(() -> kubelet.allocate(RESOURCE, List.of(List.of(GPU0 + "-0"))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .contains(
                        "node lock hami.io/mutex.lock='yesterday,default' on node gpu-node-1 does not parse"));
    assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).isEqualTo("yesterday,default");
  }

  @Test
  void staleLockOfAFinishedPodIsLeftAndTheScanFindsThePod() {
    create(
        MakeBoundPod.bound("done", NODE, ";")
            .phase("Running")
            .annotation(Annotations.BIND_PHASE, "success")
            .container("c", 1)
            .build());
    create(MakeBoundPod.bound("next", NODE, GPU0 + ",NVIDIA,500,0:;").container("c", 1).build());
    lock("default", "done");

    kubelet.allocate(RESOURCE, List.of(List.of(GPU0 + "-0")));

    assertThat(pod("next").getMetadata().getAnnotations())
        .containsEntry(Annotations.BIND_PHASE, "success");
    // Owner-checked: the lock names another pod, so it stays.
    assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).isEqualTo(LOCK_TIME + ",default,done");
  }

  @Test
  void xidErrorMarksTheGpuUnhealthyAtOnce() throws Exception {
    nvml.injectXid(1, 13);
    nvml.injectXid(1, 79);

    List<Device> devices =
        kubelet.awaitDevices(
            RESOURCE,
            d -> d.stream().anyMatch(x -> x.getHealth().equals("Unhealthy")),
            Duration.ofSeconds(10));

    assertThat(devices)
        .filteredOn(d -> d.getID().startsWith(GPU1))
        .extracting(Device::getHealth)
        .containsOnly("Unhealthy");
    assertThat(devices)
        .filteredOn(d -> d.getID().startsWith(GPU0))
        .extracting(Device::getHealth)
        .containsOnly("Healthy");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(nodeAnnotation(Annotations.NODE_NVIDIA_REGISTER))
                    .contains("\"numa\":1,\"mode\":\"hami-core\"}]"));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(node().getStatus().getAllocatable().get(RESOURCE).getAmount())
                    .isEqualTo("4"));
  }

  @Test
  void kubeletRestartRegistersAgain() throws Exception {
    kubelet.restart();

    List<Device> devices =
        kubelet.awaitDevices(RESOURCE, d -> d.size() == 8, Duration.ofSeconds(20));

    assertThat(devices).hasSize(8);
    assertThat(kubelet.registrations()).hasSize(1);
    assertThat(deviceDir.resolve("nvidia-gpu.sock")).exists();
    assertGoodPodStillSucceeds("after-restart");
  }

  @Test
  void stopRemovesTheSocket() {
    agent.stop(Duration.ofSeconds(10));
    assertThat(deviceDir.resolve("nvidia-gpu.sock")).doesNotExist();
  }

  private void assertFailedAndUnlocked(String name) {
    assertThat(pod(name).getMetadata().getAnnotations())
        .containsEntry(Annotations.BIND_PHASE, "failed");
    assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).isNull();
  }

  private void assertGoodPodStillSucceeds(String name) {
    Pod good =
        create(
            MakeBoundPod.bound(name, NODE, GPU1 + ",NVIDIA,1024,25:;").container("c", 1).build());
    lock("default", name);
    Map<String, ContainerAllocateResponse> r = kubelet.allocatePod(RESOURCE, good);
    assertThat(r.get("c").getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", GPU1);
    assertThat(pod(name).getMetadata().getAnnotations())
        .containsEntry(Annotations.BIND_PHASE, "success");
    assertThat(nodeAnnotation(Annotations.MUTEX_LOCK)).isNull();
  }

  private static Mount mount(String container, String host, boolean ro) {
    return Mount.newBuilder().setContainerPath(container).setHostPath(host).setReadOnly(ro).build();
  }

  private Pod create(Pod pod) {
    return client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
  }

  private Pod pod(String name) {
    return client.pods().inNamespace("default").withName(name).get();
  }

  private Node node() {
    return AgentFixture.node(client);
  }

  private @Nullable String nodeAnnotation(String key) {
    return AgentFixture.nodeAnnotation(client, key);
  }

  private void lock(String ns, String name) {
    patchNode(Annotations.MUTEX_LOCK, LOCK_TIME + "," + ns + "," + name);
  }

  private void patchNode(String key, String value) {
    AgentFixture.patchNode(client, key, value);
  }

  @SuppressWarnings("unused")
  private static EnvVar env(String k, String v) {
    return new EnvVar(k, v, null);
  }
}
