package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.model.device.MigPlacement;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.MigAllocationJson;
import io.hami.model.testing.MakeBoundPod;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.config.OperatingMode;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateRequest;
import io.hami.nodeagent.deviceplugin.v1beta1.AllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.metrics.DeviceMetrics;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.nvml.MigInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Allocate in MIG mode (spec §8.3) against the mock API server and the fake NVML. */
@EnableKubernetesMockClient(crud = true)
class MigAllocatorTest {
  private static final String NODE = "mig-node";

  KubernetesClient client;
  FakeNvml nvml;
  String gpu;
  MigInstances instances;
  Allocator allocator;

  @BeforeEach
  void setUp() {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    nvml = FakeNvml.fromSpec("1xNVIDIA A100-SXM4-80GB:81920MiB,mig", NODE);
    gpu = nvml.devices().get(0).uuid();
    instances = new MigInstances(nvml, new GpuInventory(nvml.devices()));
    NodeAgentConfig config = NodeAgentConfig.builder(NODE).mode(OperatingMode.MIG).build();
    allocator = new Allocator(client, config, () -> "x", this::pods, instances);
  }

  @Test
  void allocateCreatesTheInstanceAndHandsOutItsUuidOnly() throws Exception {
    create(pod("p1", alloc(0, 0, "1g.10gb", 0, 1)));

    AllocateResponse r = allocator.allocate(request(1));

    List<MigInstance> on = nvml.migInstances(0);
    assertThat(on).hasSize(1);
    MigInstance made = on.get(0);
    assertThat(made.placement()).isEqualTo(new MigPlacement(0, 1));
    assertThat(r.getContainerResponses(0).getEnvsMap())
        .containsOnlyKeys("NVIDIA_VISIBLE_DEVICES")
        .containsEntry("NVIDIA_VISIBLE_DEVICES", made.migUuid());
    assertThat(r.getContainerResponses(0).getMountsList()).isEmpty();
    Pod now = get("p1");
    assertThat(annotation(now, Annotations.VGPU_MIG_ALLOCATIONS))
        .isEqualTo(
            MigAllocationJson.encode(
                List.of(
                    new MigAllocation(
                        0,
                        0,
                        gpu,
                        "1g.10gb",
                        new MigPlacement(0, 1),
                        Optional.of(
                            new MigAllocation.Instance(
                                made.migUuid(),
                                made.gpuInstanceId(),
                                made.computeInstanceId()))))));
    assertThat(annotation(now, Annotations.BIND_PHASE)).isEqualTo(BindPhase.SUCCESS.wire());
    assertThat(annotation(now, Annotations.VGPU_DEVICES_TO_ALLOCATE)).isEqualTo(";");
  }

  @Test
  void secondPodAtAnotherPlacementGetsItsOwnInstance() throws Exception {
    create(pod("p1", alloc(0, 0, "1g.10gb", 0, 1)));
    String first = visible(allocator.allocate(request(1)));
    running("p1");
    create(pod("p2", alloc(0, 0, "2g.20gb", 2, 2)));

    String second = visible(allocator.allocate(request(1)));

    assertThat(second).startsWith("MIG-").isNotEqualTo(first);
    assertThat(nvml.migInstances(0))
        .extracting(MigInstance::placement)
        .containsExactly(new MigPlacement(0, 1), new MigPlacement(2, 2));
  }

  record Refused(String name, String profile, int start, int size, String want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Refused> refusals() {
    return Stream.of(
        new Refused("overlapping placement", "2g.20gb", 0, 2, "placement 0:2"),
        new Refused("same placement as another pod", "1g.10gb", 0, 1, "of pod default/p1"),
        new Refused("unknown profile", "9g.99gb", 0, 1, "offers no profile 9g.99gb"),
        new Refused("illegal placement", "2g.20gb", 1, 2, "Invalid Argument|not legal"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void allocateRefusesAPlacementItCannotCreate(Refused c) throws Exception {
    create(pod("p1", alloc(0, 0, "1g.10gb", 0, 1)));
    allocator.allocate(request(1));
    running("p1");
    create(pod("p3", alloc(0, 0, c.profile(), c.start(), c.size())));

    assertThatThrownBy(() -> allocator.allocate(request(1)))
        .isInstanceOf(AllocationException.class)
        .hasMessageContaining("pod default/p3 container c")
        .hasMessageContaining("MIG " + c.profile() + " at placement " + c.start() + ":" + c.size())
        .hasMessageMatching("(?s).*(" + c.want() + ").*");
    assertThat(nvml.migInstances(0)).hasSize(1);
    assertThat(annotation(get("p3"), Annotations.BIND_PHASE)).isEqualTo(BindPhase.FAILED.wire());
  }

  @Test
  void failedAllocationDestroysTheInstancesItCreated() throws Exception {
    create(pod("p1", alloc(0, 0, "1g.10gb", 0, 1)));
    allocator.allocate(request(1));
    running("p1");
    // Two devices: the first fits at slice 4, the second overlaps p1's instance.
    create(
        MakeBoundPod.bound("p4", NODE, gpu + ",NVIDIA,9728,15:" + gpu + ",NVIDIA,19968,29:;")
            .annotation(
                Annotations.VGPU_MIG_ALLOCATIONS,
                MigAllocationJson.encode(
                    List.of(alloc(0, 0, "1g.10gb", 4, 1), alloc(0, 1, "2g.20gb", 0, 2))))
            .container("c", 2)
            .build());

    assertThatThrownBy(() -> allocator.allocate(request(2))).hasMessageContaining("placement 0:2");

    assertThat(nvml.migInstances(0))
        .extracting(MigInstance::placement)
        .containsExactly(new MigPlacement(0, 1));
  }

  @Test
  void retriedAllocateReusesTheInstance() throws Exception {
    Pod p1 = pod("p1", alloc(0, 0, "1g.10gb", 3, 1));
    create(p1);
    String first = visible(allocator.allocate(request(1)));
    // kubelet asks again for the same pod (the scheduler's annotations back as they were).
    client.pods().resource(p1).update();

    String again = visible(allocator.allocate(request(1)));

    assertThat(again).isEqualTo(first);
    assertThat(nvml.migInstances(0)).hasSize(1);
  }

  @Test
  void metricsNameEachInstanceAContainerHolds() throws Exception {
    create(pod("p1", alloc(0, 0, "3g.40gb", 4, 4)));
    String uuid = visible(allocator.allocate(request(1)));
    create(pod("p2", alloc(0, 0, "1g.10gb", 0, 1)));

    var series = DeviceMetrics.migInstances(NODE, pods());

    // p2 is not allocated yet: only p1's instance is named.
    assertThat(series).hasSize(1);
    DeviceMetrics.MigSeries s = series.get(0);
    assertThat(List.of(s.pod(), s.container(), s.allocation().profile(), s.instance().migUuid()))
        .containsExactly("p1", "c", "3g.40gb", uuid);
  }

  @Test
  void migModeWithoutAllocationsFails() {
    create(MakeBoundPod.bound("p5", NODE, gpu + ",NVIDIA,9728,15:;").container("c", 1).build());

    assertThatThrownBy(() -> allocator.allocate(request(1)))
        .hasMessageContaining("pod default/p5")
        .hasMessageContaining(Annotations.VGPU_MIG_ALLOCATIONS + " is missing");
  }

  @Test
  void reapDestroysTheInstancesOfPodsThatAreGone() throws Exception {
    create(pod("p1", alloc(0, 0, "1g.10gb", 0, 1)));
    allocator.allocate(request(1));
    running("p1");
    create(pod("p2", alloc(0, 0, "1g.10gb", 1, 1)));
    allocator.allocate(request(1));
    running("p2");

    assertThat(instances.reap(this::pods)).isZero();
    client.pods().inNamespace("default").withName("p1").delete();
    setPhase("p2", "Succeeded");
    // The first pass that finds them unheld only marks them; the second destroys them.
    assertThat(instances.reap(this::pods)).isZero();
    assertThat(instances.reap(this::pods)).isEqualTo(2);

    assertThat(nvml.migInstances(0)).isEmpty();
    create(pod("p6", alloc(0, 0, "7g.80gb", 0, 8)));
    assertThat(visible(allocator.allocate(request(1)))).startsWith("MIG-");
  }

  @Test
  void reapKeepsInstancesThroughOneWrongPodList() throws Exception {
    create(pod("p1", alloc(0, 0, "1g.10gb", 0, 1)));
    allocator.allocate(request(1));
    running("p1");

    // One pass answered by an empty list, then a correct one: the instance survives both.
    assertThat(instances.reap(List::of)).isZero();
    assertThat(instances.reap(this::pods)).isZero();
    assertThat(instances.reap(List::of)).isZero();
    assertThat(nvml.migInstances(0)).hasSize(1);
  }

  private MigAllocation alloc(int container, int device, String profile, int start, int size) {
    return new MigAllocation(
        container, device, gpu, profile, new MigPlacement(start, size), Optional.empty());
  }

  private Pod pod(String name, MigAllocation a) {
    return MakeBoundPod.bound(name, NODE, gpu + ",NVIDIA,9728,15:;")
        .annotation(Annotations.VGPU_MIG_ALLOCATIONS, MigAllocationJson.encode(List.of(a)))
        .container("c", 1)
        .build();
  }

  private void create(Pod p) {
    client.pods().inNamespace("default").resource(p).create();
  }

  private Pod get(String name) {
    return client.pods().inNamespace("default").withName(name).get();
  }

  private void running(String name) {
    setPhase(name, "Running");
  }

  private void setPhase(String name, String phase) {
    Pod p = get(name);
    p.getStatus().setPhase(phase);
    client.pods().resource(p).update();
  }

  private List<Pod> pods() {
    return client.pods().inAnyNamespace().list().getItems();
  }

  private static AllocateRequest request(int devices) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      ids.add("GPU-replica-" + i);
    }
    return AllocateRequest.newBuilder()
        .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids))
        .build();
  }

  private static String visible(AllocateResponse r) {
    return r.getContainerResponses(0).getEnvsOrThrow("NVIDIA_VISIBLE_DEVICES");
  }

  private static String annotation(Pod p, String key) {
    return p.getMetadata().getAnnotations().get(key);
  }
}
