package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.framework.testing.FakeHandle;
import io.hami.model.Annotations;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class DeviceUsageIndexTest {

  final Map<String, DeviceUsageIndex.Held> held = new HashMap<>();
  final List<String> warnings = new ArrayList<>();
  final DeviceUsageIndex index =
      new DeviceUsageIndex(
          node -> {
            String v = node.getMetadata().getAnnotations().get("reg");
            if (v == null) {
              return DeviceUsageIndex.Registered.NONE;
            }
            if (v.equals("bad")) {
              return DeviceUsageIndex.Registered.invalid("bad register");
            }
            return new DeviceUsageIndex.Registered(
                ImmutableList.of(
                    DeviceUsage.idle("g0", 0, "NVIDIA", "NVIDIA-T4", 0, 10, 1000, 100),
                    DeviceUsage.idle("g1", 1, "NVIDIA", "NVIDIA-T4", 0, 10, 1000, 100)),
                PairScores.NONE,
                null);
          },
          pod -> held.get(pod.getMetadata().getUid()),
          (node, r) -> warnings.add(node.getMetadata().getName() + ": " + r.invalid()));

  static Node node(String name, String reg) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToAnnotations("reg", reg)
        .endMetadata()
        .build();
  }

  static Pod pod(String uid) {
    return new PodBuilder().withNewMetadata().withName(uid).withUid(uid).endMetadata().build();
  }

  static PodUsage usage(String id, int slots, int mem, int cores) {
    return new PodUsage(ImmutableMap.of(id, new PodUsage.Usage(slots, mem, cores)));
  }

  @Test
  void reserveThenConfirmThenDelete() {
    index.upsertNode(node("n1", "ok"));
    index.reserve("p1", "n1", usage("g0", 1, 300, 30));
    assertThat(index.node("n1").device("g0").usedMemMiB()).isEqualTo(300);

    // The informer shows the pod before its annotations: the reservation stays.
    index.upsertPod(pod("p1"));
    assertThat(index.node("n1").device("g0").usedMemMiB()).isEqualTo(300);

    // Annotations arrive: confirmed; a late unreserve no longer drops it.
    held.put("p1", new DeviceUsageIndex.Held("n1", usage("g0", 1, 300, 30)));
    index.upsertPod(pod("p1"));
    index.unreserve("p1");
    assertThat(index.node("n1").device("g0").usedMemMiB()).isEqualTo(300);

    index.deletePod(pod("p1"));
    assertThat(index.node("n1").device("g0").usedMemMiB()).isZero();
    assertThat(index.node("n1").device("g0").usedSlots()).isZero();
  }

  @Test
  void unreserveDropsUnconfirmedReservation() {
    index.upsertNode(node("n1", "ok"));
    index.reserve("p1", "n1", usage("g1", 1, 100, 0));
    index.unreserve("p1");
    assertThat(index.node("n1").device("g1").usedSlots()).isZero();
  }

  @Test
  void podBeforeNodeIsCountedWhenNodeArrives() {
    held.put("p1", new DeviceUsageIndex.Held("n1", usage("g0", 2, 500, 0)));
    index.upsertPod(pod("p1"));
    index.upsertNode(node("n1", "ok"));
    assertThat(index.node("n1").device("g0").usedSlots()).isEqualTo(2);
  }

  @Test
  void podMovingNodesMovesItsUsage() {
    index.upsertNode(node("n1", "ok"));
    index.upsertNode(node("n2", "ok"));
    held.put("p1", new DeviceUsageIndex.Held("n1", usage("g0", 1, 500, 0)));
    index.upsertPod(pod("p1"));
    held.put("p1", new DeviceUsageIndex.Held("n2", usage("g1", 1, 200, 0)));
    index.upsertPod(pod("p1"));
    assertThat(index.node("n1").device("g0").usedMemMiB()).isZero();
    assertThat(index.node("n2").device("g1").usedMemMiB()).isEqualTo(200);
  }

  @Test
  void invalidNodeWarnsOnceAndRecovers() {
    index.upsertNode(node("n1", "bad"));
    Node again = node("n1", "bad");
    again.getMetadata().getAnnotations().put("other", "x");
    index.upsertNode(again);
    assertThat(warnings).containsExactly("n1: bad register");
    assertThat(index.invalidNodeEvents()).isEqualTo(1);
    assertThat(index.node("n1").invalid()).isEqualTo("bad register");
    assertThat(index.invalidNodes()).isEqualTo(1);

    index.upsertNode(node("n1", "ok"));
    assertThat(index.node("n1").invalid()).isNull();
    assertThat(index.node("n1").devices()).hasSize(2);
    assertThat(index.invalidNodes()).isZero();
  }

  @Test
  void unchangedNodeIsNotReread() {
    index.upsertNode(node("n1", "ok"));
    long v = index.node("n1").version();
    index.upsertNode(node("n1", "ok"));
    assertThat(index.node("n1").version()).isEqualTo(v);
  }

  @Test
  void everyNewViewIsReportedToTheScheduler() {
    FakeHandle handle = new FakeHandle();
    DeviceUsageIndex shared = new SharedGpuState().index(handle);
    handle.fireNodeAdd(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 1)).obj());
    assertThat(handle.changedNodes()).containsExactly("n1");

    // Another scheduler's pod, annotated for n1 but not bound: only the index sees it.
    String dev = FakeGpus.uuid("n1", 0);
    handle.firePodAdd(
        MakeGpuPod.named("other")
            .gpus(1)
            .annotation(Annotations.VGPU_NODE, "n1")
            .annotation(Annotations.VGPU_DEVICES_ALLOCATED, dev + ",NVIDIA,1000,10:;")
            .obj());
    assertThat(handle.changedNodes()).containsExactly("n1", "n1");

    shared.reserve("p1", "n1", usage(dev, 1, 500, 0));
    shared.unreserve("p1");
    assertThat(handle.changedNodes()).containsExactly("n1", "n1", "n1", "n1");
  }
}
