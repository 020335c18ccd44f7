package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import io.hami.framework.testing.FakeHandle;
import io.hami.model.Annotations;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The compatibility traps of protocol §11 that the scheduler side meets. Trap 9 (attribution by
 * {@code hami.io/vgpu-node}), 12 (whole cards are exclusive) and 13 ({@code 16Gi} invalidates the
 * request) are in {@link VgpuPluginTest}, trap 10 (request type in the device score) in {@link
 * ScoreVectorsTest}, trap 7 (lock value and owner-checked release) in the node lock tests. Trap 11
 * (extender JSON field names) does not apply: this scheduler is not an extender.
 */
final class CompatibilityTrapsTest {

  final FakeHandle handle = new FakeHandle();
  final VgpuPlugin plugin = VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, new SharedGpuState());

  NodeDevices add(Node n) {
    handle.fireNodeAdd(n);
    return plugin.index().node(n.getMetadata().getName());
  }

  @Test
  void trap1_colonAndJsonRegistrationsAreBothRead() {
    NodeDevices json = add(MakeGpuNode.named("new").gpus(FakeGpus.t4s("new", 2)).obj());
    NodeDevices colon =
        add(MakeGpuNode.named("old").gpus(FakeGpus.t4s("old", 2)).colonForm().obj());
    assertThat(json.devices()).hasSize(2);
    assertThat(colon.devices()).hasSize(2);
    assertThat(colon.devices().get(1).totalMemMiB()).isEqualTo(15360);
    assertThat(colon.invalid()).isNull();
  }

  @Test
  void trap2_jsonWithCapitalisedKeysOmittedZerosAndUnknownKeys() {
    String reg =
        "[{\"ID\":\"GPU-x\",\"Count\":4,\"Devmem\":8738,\"Devcore\":100,\"Type\":\"NVIDIA-X\",\"Health\":true,"
            + "\"devicepairscore\":{}}]";
    NodeDevices n =
        add(MakeGpuNode.named("n").annotation(Annotations.NODE_NVIDIA_REGISTER, reg).obj());
    DeviceUsage d = n.device("GPU-x");
    assertThat(d).isNotNull();
    assertThat(d.index()).isZero();
    assertThat(d.numa()).isZero();
    assertThat(d.mode()).isEqualTo("hami-core");
    assertThat(d.totalSlots()).isEqualTo(4);
    assertThat(d.healthy()).isTrue();
  }

  @Test
  void trap3_emptyEntriesKeepContainerIndices() {
    add(MakeGpuNode.named("n").gpus(FakeGpus.t4s("n", 1)).obj());
    String g = FakeGpus.uuid("n", 0);
    // init (no device), app on g with 1000 MiB; the leading empty entry marks the init container.
    Pod pod =
        MakeGpuPod.named("p")
            .initContainer("init")
            .container("main")
            .gpus(1)
            .annotation(Annotations.VGPU_NODE, "n")
            .annotation(Annotations.VGPU_DEVICES_ALLOCATED, ";" + g + ",NVIDIA,1000,30:;")
            .obj();
    handle.firePodAdd(pod);
    DeviceUsage d = plugin.index().node("n").device(g);
    assertThat(d.usedMemMiB()).isEqualTo(1000);
    assertThat(d.usedCores()).isEqualTo(30);
  }

  @Test
  void trap4_unpaddedEntriesOfAppContainersAreNotTakenForInitContainers() {
    add(MakeGpuNode.named("n").gpus(FakeGpus.t4s("n", 1)).obj());
    String g = FakeGpus.uuid("n", 0);
    // v2.10 may drop the empty entry of the device-less init container: both entries are apps.
    Pod pod =
        MakeGpuPod.named("p")
            .initContainer("init")
            .container("a")
            .gpus(1)
            .container("b")
            .gpus(1)
            .annotation(Annotations.VGPU_NODE, "n")
            .annotation(
                Annotations.VGPU_DEVICES_ALLOCATED, g + ",NVIDIA,500,10:;" + g + ",NVIDIA,500,10:;")
            .obj();
    handle.firePodAdd(pod);
    DeviceUsage d = plugin.index().node("n").device(g);
    assertThat(d.usedMemMiB()).isEqualTo(1000);
    assertThat(d.usedSlots()).isEqualTo(2);
  }

  @Test
  void trap5_healthFollowsAllocatableNotReports() {
    // v2.8+ plugins never write "Reported": a node without a handshake but with allocatable is
    // healthy.
    NodeDevices ok = add(MakeGpuNode.named("ok").gpus(FakeGpus.t4s("ok", 1)).obj());
    assertThat(ok.devices().get(0).healthy()).isTrue();
    // The device plugin left kubelet: allocatable nvidia.com/gpu is 0.
    Node gone = MakeGpuNode.named("gone").gpus(FakeGpus.t4s("gone", 1)).withoutAllocatable().obj();
    gone.getStatus().getAllocatable().put("nvidia.com/gpu", new Quantity("0"));
    assertThat(add(gone).devices().get(0).healthy()).isFalse();
  }

  @Test
  void trap6_staleRequestingHandshakeWithoutAllocatableIsUnhealthy() {
    Node stale =
        MakeGpuNode.named("stale")
            .gpus(FakeGpus.t4s("stale", 1))
            .withoutAllocatable()
            .annotation(Annotations.NODE_HANDSHAKE, "Requesting_2024-01-02 00:00:00")
            .obj();
    assertThat(add(stale).devices().get(0).healthy()).isFalse();
    Node fresh =
        MakeGpuNode.named("fresh")
            .gpus(FakeGpus.t4s("fresh", 1))
            .annotation(Annotations.NODE_HANDSHAKE, "Requesting_2024-01-02 00:00:00")
            .obj();
    assertThat(add(fresh).devices().get(0).healthy()).as("allocatable keeps it healthy").isTrue();
    Node unparsable =
        MakeGpuNode.named("odd")
            .gpus(FakeGpus.t4s("odd", 1))
            .withoutAllocatable()
            .annotation(Annotations.NODE_HANDSHAKE, "Requesting_not-a-timestamp")
            .obj();
    assertThat(add(unparsable).devices().get(0).healthy()).isTrue();
  }

  @Test
  void trap8_filterWritesNothing_onlyReserveAccountsAndOnlyPreBindAnnotates() {
    Node n1 = MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 1)).obj();
    Node n2 = MakeGpuNode.named("n2").gpus(FakeGpus.t4s("n2", 1)).obj();
    add(n1);
    add(n2);
    Pod pod = MakeGpuPod.named("p").gpus(1).gpuMemMiB(1000).obj();
    CycleState s = new CycleState();
    plugin.preFilter(s, pod, Snapshot.of(List.of(NodeInfo.of(n1), NodeInfo.of(n2))));
    assertThat(plugin.filter(s, pod, NodeInfo.of(n1)).isSuccess()).isTrue();
    assertThat(plugin.filter(s, pod, NodeInfo.of(n2)).isSuccess()).isTrue();
    assertThat(plugin.index().podsOn("n1")).isEmpty();
    assertThat(plugin.index().podsOn("n2")).isEmpty();
    assertThat(plugin.reserve(s, pod, "n2").isSuccess()).isTrue();
    assertThat(plugin.index().podsOn("n2")).containsExactly("uid-p");
    assertThat(plugin.index().podsOn("n1")).isEmpty();
  }
}
