package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.QueueingHintFunction;
import io.hami.framework.api.Status;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.PluginHarness;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class VgpuPluginTest {

  final FakeHandle handle = new FakeHandle();
  final VgpuPlugin plugin = VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, new SharedGpuState());

  PluginHarness harness(Node... nodes) {
    for (Node n : nodes) {
      handle.fireNodeAdd(n);
    }
    return PluginHarness.create()
        .plugin(plugin)
        .nodes(Arrays.stream(nodes).map(NodeInfo::of).toArray(NodeInfo[]::new));
  }

  static Node t4Node(String name, int gpus) {
    return MakeGpuNode.named(name).gpus(FakeGpus.t4s(name, gpus)).obj();
  }

  @Test
  void fractionalPod_isPlacedReservedAndAnnotated() {
    PluginHarness h = harness(t4Node("n1", 2));
    Pod pod = MakeGpuPod.named("p").gpus(1).gpuMemMiB(4096).gpuCores(30).obj();
    PluginHarness.Result r = h.run(pod);
    assertThat(r.selected()).isEqualTo("n1");
    assertThat(h.reserve(r.state(), pod, "n1").isSuccess()).isTrue();

    NodeDevices view = plugin.index().node("n1");
    assertThat(view.devices().stream().mapToInt(DeviceUsage::usedMemMiB).sum()).isEqualTo(4096);
    Placement p = r.state().require(VgpuPlugin.RESERVED).placement();
    Map<String, String> annos = BindingAnnotations.of(p, 1_705_054_796L);
    String dev = p.containers().get(0).get(0).id();
    assertThat(annos)
        .containsEntry(Annotations.VGPU_NODE, "n1")
        .containsEntry(Annotations.VGPU_TIME, "1705054796")
        .containsEntry(Annotations.VGPU_DEVICES_TO_ALLOCATE, dev + ",NVIDIA,4096,30:;")
        .containsEntry(Annotations.VGPU_DEVICES_ALLOCATED, dev + ",NVIDIA,4096,30:;")
        .containsEntry(Annotations.BIND_PHASE, "allocating")
        .containsEntry(Annotations.BIND_TIME, "1705054796");
    // Without an API client there is nothing to write.
    assertThat(plugin.preBind(r.state(), pod, "n1").isSuccess()).isTrue();

    h.unreserve(r.state(), pod, "n1");
    assertThat(plugin.index().node("n1").devices().stream().mapToInt(DeviceUsage::usedMemMiB).sum())
        .isZero();
  }

  @Test
  void scheduledRecord_carriesThePodsPoliciesAndTheRuntimesSelection() {
    PluginHarness h = harness(t4Node("n1", 1), t4Node("n2", 1));
    Pod pod =
        MakeGpuPod.named("p")
            .gpus(1)
            .gpuMemMiB(1000)
            .annotation(Annotations.NODE_SCHEDULER_POLICY, "spread")
            .annotation(Annotations.GPU_SCHEDULER_POLICY, "binpack")
            .annotation(Annotations.NVIDIA_NUMA_BIND, "true")
            .obj();
    PluginHarness.Result r = h.run(pod);
    Instant now = Instant.parse("2026-11-29T13:53:11Z");

    assertThat(BindingAnnotations.scheduledRecord(r.state(), "n1", now))
        .isEqualTo(
            new ScheduleRecord.Scheduled(
                now, "n1", null, "spread", "binpack,numa-bind", 0, 0, List.of()));

    r.state()
        .write(
            NodeSelection.KEY,
            new NodeSelection(
                2,
                2,
                200L,
                List.of(
                    new NodeSelection.Candidate("n1", 200),
                    new NodeSelection.Candidate("n2", 150))));
    assertThat(BindingAnnotations.scheduledRecord(r.state(), "n1", now))
        .isEqualTo(
            new ScheduleRecord.Scheduled(
                now,
                "n1",
                200L,
                "spread",
                "binpack,numa-bind",
                2,
                2,
                List.of(
                    new ScheduleRecord.NodeScore("n1", 200),
                    new ScheduleRecord.NodeScore("n2", 150))));
  }

  @Test
  void podWithoutDevices_isSkipped() {
    PluginHarness h = harness(t4Node("n1", 1));
    PluginHarness.Result r = h.run(MakePod.named("plain").cpu("1").obj());
    assertThat(r.feasible()).containsExactly("n1");
    assertThat(r.state().get(VgpuPlugin.REQUESTS)).isNull();
  }

  @Test
  void byteUnitMemory_isRejectedWithTheFieldAndValue_trap13() {
    PluginHarness h = harness(t4Node("n1", 1));
    PluginHarness.Result r =
        h.run(MakeGpuPod.named("p").gpus(1).limit("nvidia.com/gpumem", "16Gi").obj());
    assertThat(r.preFilterStatus().code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(r.preFilterStatus().message()).contains("nvidia.com/gpumem").contains("16Gi");
  }

  @Test
  void invalidScoringWeights_areRejectedWithTheAnnotation() {
    PluginHarness h = harness(t4Node("n1", 1));
    PluginHarness.Result r =
        h.run(
            MakeGpuPod.named("p")
                .gpus(1)
                .annotation(Annotations.DEVICE_SCORING_WEIGHTS, "core=high")
                .obj());
    assertThat(r.preFilterStatus().code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(r.preFilterStatus().message())
        .startsWith(Annotations.DEVICE_SCORING_WEIGHTS + "=\"core=high\"")
        .contains("core");
  }

  @Test
  void fullNodes_reportReasonCodes() {
    PluginHarness h = harness(t4Node("n1", 1), t4Node("n2", 1));
    PluginHarness.Result r = h.run(MakeGpuPod.named("p").gpus(1).gpuMemMiB(20000).obj());
    assertThat(r.selected()).isNull();
    assertThat(r.filterStatuses().values())
        .extracting(Status::reasons)
        .containsOnly(List.of("CardInsufficientMemory"));
  }

  @Test
  void nodePolicy_binpackPrefersBusyNodeAndSpreadIdleNode() {
    PluginHarness h = harness(t4Node("busy", 1), t4Node("idle", 1));
    plugin
        .index()
        .reserve(
            "other",
            "busy",
            PodUsage.collapse(
                List.of(List.of(new DevicePick(FakeGpus.uuid("busy", 0), "NVIDIA", 4000, 20))),
                0,
                false));
    assertThat(h.run(MakeGpuPod.named("a").gpus(1).gpuMemMiB(1000).obj()).selected())
        .isEqualTo("busy");
    assertThat(
            h.run(MakeGpuPod.named("b").gpus(1).gpuMemMiB(1000).nodePolicy("spread").obj())
                .selected())
        .isEqualTo("idle");
  }

  @Test
  void unreadableRegistration_skipsNodeWithOneWarningAndRecovers() {
    Node bad =
        MakeGpuNode.named("n1").annotation(Annotations.NODE_NVIDIA_REGISTER, "[{\"id\":").obj();
    PluginHarness h = harness(bad, t4Node("n2", 1));
    handle.fireNodeUpdate(bad, bad);
    PluginHarness.Result r = h.run(MakeGpuPod.named("p").gpus(1).gpuMemMiB(100).obj());
    assertThat(r.selected()).isEqualTo("n2");
    assertThat(r.filterStatuses().get("n1").reasons()).containsExactly("NodeAnnotationInvalid");
    assertThat(handle.events()).hasSize(1);
    assertThat(handle.events().get(0).type().value()).isEqualTo("Warning");
    assertThat(handle.events().get(0).note())
        .contains(Annotations.NODE_NVIDIA_REGISTER + "=\"[{\"id\":\"");
    assertThat(plugin.index().invalidNodeEvents()).isEqualTo(1);

    handle.fireNodeUpdate(bad, t4Node("n1", 1));
    assertThat(plugin.index().node("n1").invalid()).isNull();
    assertThat(plugin.index().node("n1").devices()).hasSize(1);
  }

  @Test
  void unknownPolicyAndFlagValues_arePlacedAsHamiDoes_withOneWarningEachNamingKeyAndValue() {
    record Case(String key, String value, String mentions) {}
    List<Case> cases =
        List.of(
            new Case(Annotations.GPU_SCHEDULER_POLICY, "bin-pack", "devices are ordered as spread"),
            new Case(Annotations.GPU_SCHEDULER_POLICY, "binpack,nearest", "\"nearest\""),
            new Case(Annotations.NODE_SCHEDULER_POLICY, "Spreading", "nodes are ranked as binpack"),
            new Case(Annotations.NVIDIA_NUMA_BIND, "yes", "NUMA binding is off"));
    PluginHarness h = harness(t4Node("n1", 1));
    for (Case c : cases) {
      int before = handle.events().size();
      Pod pod =
          MakeGpuPod.named("p-" + c.value())
              .uid("uid-" + c.value())
              .gpus(1)
              .gpuMemMiB(100)
              .annotation(c.key(), c.value())
              .obj();
      assertThat(h.run(pod).selected()).as(c.value()).isEqualTo("n1");
      assertThat(h.run(pod).selected()).as("a retry").isEqualTo("n1");

      assertThat(handle.events().subList(before, handle.events().size()))
          .as(c.value())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.type().value()).isEqualTo("Warning");
                assertThat(e.reason()).isEqualTo(PodAnnotationWarnings.REASON);
                assertThat(e.regarding()).isSameAs(pod);
                assertThat(e.note())
                    .startsWith(c.key() + "=\"" + c.value() + "\"")
                    .contains(c.mentions());
              });
    }
  }

  @Test
  void knownPolicyValues_warnNothing() {
    PluginHarness h = harness(t4Node("n1", 1));
    for (String v :
        List.of("binpack", "Spread", "topology-aware", "mutex", "numa", "binpack, numa")) {
      h.run(
          MakeGpuPod.named("p")
              .uid("uid-" + v)
              .gpus(1)
              .gpuMemMiB(100)
              .gpuPolicy(v)
              .nodePolicy(" spread ")
              .annotation(Annotations.NVIDIA_NUMA_BIND, "True")
              .obj());
    }
    assertThat(handle.events()).isEmpty();
  }

  @Test
  void unreadableAllocation_isReportedOnThePodOnce_andTheOtherPodsStillCount() {
    harness(t4Node("n1", 1));
    String dev = FakeGpus.uuid("n1", 0);
    Pod good =
        MakeGpuPod.named("good")
            .uid("uid-good")
            .gpus(1)
            .nodeName("n1")
            .annotation(Annotations.VGPU_NODE, "n1")
            .annotation(Annotations.VGPU_DEVICES_ALLOCATED, dev + ",NVIDIA,1000,10:;")
            .obj();
    Pod bad =
        MakeGpuPod.named("bad")
            .uid("uid-bad")
            .gpus(1)
            .nodeName("n1")
            .annotation(Annotations.VGPU_NODE, "n1")
            .annotation(Annotations.VGPU_DEVICES_ALLOCATED, dev + ",NVIDIA,lots,10:;")
            .obj();
    handle.firePodAdd(good);
    handle.firePodAdd(bad);
    handle.firePodUpdate(bad, bad);

    assertThat(plugin.index().node("n1").device(dev).usedMemMiB()).isEqualTo(1000);
    assertThat(handle.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.regarding()).isSameAs(bad);
              assertThat(e.reason()).isEqualTo(PodAnnotationWarnings.REASON);
              assertThat(e.note())
                  .startsWith(
                      Annotations.VGPU_DEVICES_ALLOCATED + "=\"" + dev + ",NVIDIA,lots,10:;\"")
                  .contains("usedmem")
                  .contains("not counted");
            });
  }

  @Test
  void usageIsAttributedByVgpuNodeAndReadFromAllocated_trap9() {
    harness(t4Node("n1", 1), t4Node("n2", 1));
    String dev = FakeGpus.uuid("n1", 0);
    Pod assigned =
        MakeGpuPod.named("running")
            .gpus(1)
            .gpuMemMiB(3000)
            .nodeName("n2") // spec.nodeName is not what counts
            .annotation(Annotations.VGPU_NODE, "n1")
            .annotation(Annotations.VGPU_DEVICES_ALLOCATED, dev + ",NVIDIA,3000,10:;")
            .annotation(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";") // consumed by the node agent
            .obj();
    handle.firePodAdd(assigned);
    assertThat(plugin.index().node("n1").device(dev).usedMemMiB()).isEqualTo(3000);
    handle.firePodUpdate(
        assigned,
        MakeGpuPod.named("running")
            .uid("uid-running")
            .phase("Succeeded")
            .annotation(Annotations.VGPU_NODE, "n1")
            .annotation(Annotations.VGPU_DEVICES_ALLOCATED, dev + ",NVIDIA,3000,10:;")
            .obj());
    assertThat(plugin.index().node("n1").device(dev).usedMemMiB()).isZero();
  }

  @Test
  void wholeCardRequest_isExclusive_trap12() {
    PluginHarness h = harness(t4Node("n1", 1));
    Pod whole = MakeGpuPod.named("whole").gpus(1).obj();
    PluginHarness.Result r = h.run(whole);
    assertThat(r.state().require(VgpuPlugin.REQUESTS).requests().containers().get(0).get(0).cores())
        .isEqualTo(100);
    assertThat(h.reserve(r.state(), whole, "n1").isSuccess()).isTrue();
    PluginHarness.Result second =
        h.run(MakeGpuPod.named("small").gpus(1).gpuMemMiB(10).gpuCores(0).obj());
    assertThat(second.selected()).isNull();
  }

  @Test
  void initAndAppContainers_areAnnotatedInitFirstWithPadding() {
    PluginHarness h = harness(t4Node("n1", 1));
    Pod pod =
        MakeGpuPod.named("p")
            .initContainer("setup")
            .container("main")
            .gpus(1)
            .gpuMemMiB(500)
            .container("sidecar")
            .obj();
    PluginHarness.Result r = h.run(pod);
    assertThat(h.reserve(r.state(), pod, "n1").isSuccess()).isTrue();
    Map<String, String> annos =
        BindingAnnotations.of(r.state().require(VgpuPlugin.RESERVED).placement(), 1);
    assertThat(annos.get(Annotations.VGPU_DEVICES_ALLOCATED))
        .isEqualTo(";" + FakeGpus.uuid("n1", 0) + ",NVIDIA,500,0:;;");
  }

  @Test
  void reserve_honoursPreferredDevices() {
    PluginHarness h = harness(t4Node("n1", 4));
    Pod pod = MakeGpuPod.named("p").gpus(2).gpuMemMiB(100).obj();
    PluginHarness.Result r = h.run(pod);
    CycleState st = r.state();
    st.write(
        VgpuPlugin.PREFERRED_DEVICES,
        DeviceChoice.of("n1", List.of(List.of(FakeGpus.uuid("n1", 0), FakeGpus.uuid("n1", 2)))));
    assertThat(plugin.reserve(st, pod, "n1").isSuccess()).isTrue();
    assertThat(st.require(VgpuPlugin.RESERVED).placement().containers().get(0))
        .extracting(DevicePick::id)
        .containsExactly(FakeGpus.uuid("n1", 0), FakeGpus.uuid("n1", 2));
  }

  @Test
  void nodeUpdates_requeueOnRegistrationChangesButNotOnHandshakeFlips() {
    QueueingHintFunction hint =
        plugin.eventsToRegister().stream()
            .filter(e -> e.event().resource() == EventResource.NODE && e.hint() != null)
            .findFirst()
            .orElseThrow()
            .hint();
    Pod pod = MakeGpuPod.named("p").gpus(1).obj();
    Node requested =
        MakeGpuNode.named("n1")
            .gpus(FakeGpus.t4s("n1", 1))
            .annotation(Annotations.NODE_HANDSHAKE, "Requesting_2026-08-21 08:20:39")
            .obj();
    Node reported =
        MakeGpuNode.named("n1")
            .gpus(FakeGpus.t4s("n1", 1))
            .annotation(Annotations.NODE_HANDSHAKE, "Reported 2026-08-21 08:20:40 +0000 UTC")
            .obj();
    Node more =
        MakeGpuNode.named("n1")
            .gpus(FakeGpus.t4s("n1", 2))
            .annotation(Annotations.NODE_HANDSHAKE, "Reported 2026-08-21 08:20:40 +0000 UTC")
            .obj();
    assertThat(hint.hint(pod, requested, reported)).isEqualTo(QueueingHint.SKIP);
    assertThat(hint.hint(pod, reported, more)).isEqualTo(QueueingHint.QUEUE);
  }

  @Test
  void podDeletes_requeueOnlyWhenTheDeletedPodHeldDevices() {
    QueueingHintFunction hint =
        plugin.eventsToRegister().stream()
            .filter(e -> e.event().resource() == EventResource.ASSIGNED_POD && e.hint() != null)
            .findFirst()
            .orElseThrow()
            .hint();
    Pod waiting = MakeGpuPod.named("waiting").gpus(1).obj();
    Pod annotated = MakeGpuPod.named("a").gpus(1).annotation(Annotations.VGPU_NODE, "n1").obj();
    Pod boundWithoutDecision = MakeGpuPod.named("b").gpus(1).obj();
    boundWithoutDecision.getSpec().setNodeName("n1");
    Pod cpuOnly = MakeGpuPod.named("c").obj();
    cpuOnly.getSpec().setNodeName("n1");

    assertThat(hint.hint(waiting, annotated, null)).isEqualTo(QueueingHint.QUEUE);
    // In memory nothing writes the decision's annotations: the device request tells.
    assertThat(hint.hint(waiting, boundWithoutDecision, null)).isEqualTo(QueueingHint.QUEUE);
    assertThat(hint.hint(waiting, cpuOnly, null)).isEqualTo(QueueingHint.SKIP);
  }

  @Test
  void deviceReasons_countTheRefusingNodesDevices() {
    harness(t4Node("n1", 2));
    Pod pod = MakeGpuPod.named("p").gpus(1).gpuMemMiB(1_000_000).obj();
    assertThat(plugin.deviceReasons(pod, "n1"))
        .containsExactly(
            "2/2 CardInsufficientMemory (cards of up to 15360 MiB, at most 15360 MiB free)");
    assertThat(plugin.deviceReasons(MakeGpuPod.named("q").gpus(3).obj(), "n1"))
        .containsExactly("NodeInsufficientDevice (the node has 2 GPUs)");
    assertThat(plugin.deviceReasons(MakeGpuPod.named("r").gpus(1).obj(), "n1")).isEmpty();
  }
}
