package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.framework.api.Code;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.PluginHarness;
import io.hami.model.Annotations;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Vendors other than NVIDIA through the model's vendor SPI (protocol §8.2, §5.1): Cambricon MLU
 * (devices from node capacity, memory in 256 MiB units, DSMLU profile), Iluvatar (colon register
 * under its common word, memory in 256 MiB units) and Ascend (JSON register, template round-up,
 * runtime info and predicate time). Each pod lands on its vendor's node among the others, and the
 * decision's annotations are the vendor's own.
 */
final class VendorSchedulingTest {

  static final String DEVICE_CONFIG =
      """
      iluvatars:
        - chipName: BI-V150
          commonWord: BI-V150
          resourceCountName: iluvatar.ai/BI-V150-vgpu
          resourceMemoryName: iluvatar.ai/BI-V150.vMem
          resourceCoreName: iluvatar.ai/BI-V150.vCore
      vnpus:
        hamiVnpuCore: false
        configs:
          - chipName: 910B3
            commonWord: Ascend910B3
            resourceName: huawei.com/Ascend910B3
            resourceMemoryName: huawei.com/Ascend910B3-memory
            memoryAllocatable: 65536
            memoryCapacity: 65536
            aiCore: 20
            aiCPU: 7
            templates:
              - name: vir05_1c_16g
                memory: 16384
                aiCore: 5
                aiCPU: 1
              - name: vir10_3c_32g
                memory: 32768
                aiCore: 10
                aiCPU: 3
      """;

  static final Instant NOW = Instant.parse("2026-08-21T08:20:39Z");

  @TempDir static Path dir;

  static VgpuArgs args(Path config) {
    VgpuArgs d = VgpuArgs.DEFAULTS;
    return new VgpuArgs(
        d.nodeSchedulerPolicy(),
        d.gpuSchedulerPolicy(),
        d.scoreByVendor(),
        d.exclusiveWholeCards(),
        d.resourceCountName(),
        d.resourceMemoryName(),
        d.resourceMemoryPercentageName(),
        d.resourceCoreName(),
        d.memoryFactor(),
        d.defaultMemory(),
        d.defaultCores(),
        true,
        d.handshakePeriodSeconds(),
        config.toString(),
        true,
        true,
        true,
        true);
  }

  /** Cambricon registers through capacity: 4 cards of 16384 MiB. */
  static Node mluNode() {
    return MakeNode.named("mlu")
        .capacity("64", "256Gi", 110)
        .resource("cambricon.com/mlu.smlu.vcore", "400")
        .resource("cambricon.com/mlu.smlu.vmemory", "256")
        .obj();
  }

  static Node iluvatarNode() {
    return MakeNode.named("ilu")
        .capacity("64", "256Gi", 110)
        .annotation(
            "hami.io/node-BI-V150-register",
            "GPU-ilu-0,10,8192,100,BI-V150,0,true:GPU-ilu-1,10,8192,100,BI-V150,0,true:")
        .obj();
  }

  static Node ascendNode() {
    return MakeNode.named("npu")
        .capacity("64", "256Gi", 110)
        .annotation(
            "hami.io/node-register-Ascend910B3",
            "[{\"id\":\"NPU-npu-0\",\"count\":4,\"devmem\":65536,\"devcore\":20,\"type\":\"Ascend910B3\",\"health\":true},"
                + "{\"id\":\"NPU-npu-1\",\"count\":4,\"devmem\":65536,\"devcore\":20,\"type\":\"Ascend910B3\",\"health\":true}]")
        .obj();
  }

  static Node hygonNode() {
    return MakeNode.named("dcu")
        .capacity("64", "256Gi", 110)
        .annotation("hami.io/node-dcu-register", "DCU-dcu-0,4,16384,100,DCU,0,true,0,hami-core:")
        .obj();
  }

  static Node nvidiaNode() {
    return MakeGpuNode.named("gpu").gpus(FakeGpus.t4s("gpu", 2)).obj();
  }

  /**
   * @param node the node the pod must land on
   * @param want the annotations expected, given the chosen device id
   * @param memMiB memory the chosen device then holds
   */
  record Case(
      String name, Pod pod, String node, Function<String, Map<String, String>> want, int memMiB) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "Cambricon MLU: memory x256, profile from the first device",
            MakePod.named("mlu-pod")
                .uid("u1")
                .limit("cambricon.com/vmlu", "1")
                .limit("cambricon.com/mlu.smlu.vmemory", "16")
                .limit("cambricon.com/mlu.smlu.vcore", "25")
                .obj(),
            "mlu",
            id ->
                Map.of(
                    "hami.io/cambricon-mlu-devices-to-allocate", id + ",MLU,4096,25:;",
                    "hami.io/cambricon-mlu-devices-allocated", id + ",MLU,4096,25:;",
                    "CAMBRICON_DSMLU_ASSIGNED", "false",
                    "CAMBRICON_DSMLU_PROFILE", id.substring(id.lastIndexOf('-') + 1) + "_25_16"),
            4096),
        new Case(
            "Cambricon MLU: cores default to a whole card",
            MakePod.named("mlu-whole")
                .uid("u2")
                .limit("cambricon.com/vmlu", "1")
                .limit("cambricon.com/mlu.smlu.vmemory", "4")
                .obj(),
            "mlu",
            id -> Map.of("hami.io/cambricon-mlu-devices-allocated", id + ",MLU,1024,100:;"),
            1024),
        new Case(
            "Iluvatar: register and allocation under the common word",
            MakePod.named("ilu-pod")
                .uid("u3")
                .limit("iluvatar.ai/BI-V150-vgpu", "1")
                .limit("iluvatar.ai/BI-V150.vMem", "8")
                .limit("iluvatar.ai/BI-V150.vCore", "50")
                .obj(),
            "ilu",
            id ->
                Map.of(
                    "hami.io/BI-V150-devices-to-allocate", id + ",BI-V150,2048,50:;",
                    "hami.io/BI-V150-devices-allocated", id + ",BI-V150,2048,50:;"),
            2048),
        new Case(
            "Iluvatar: its own UUID annotation chooses the device",
            MakePod.named("ilu-pinned")
                .uid("u4")
                .annotation("hami.io/use-BI-V150-uuid", "GPU-ilu-1")
                .annotation("nvidia.com/use-gpuuuid", "GPU-none")
                .limit("iluvatar.ai/BI-V150-vgpu", "1")
                .limit("iluvatar.ai/BI-V150.vMem", "4")
                .obj(),
            "ilu",
            id -> Map.of("hami.io/BI-V150-devices-allocated", "GPU-ilu-1,BI-V150,1024,0:;"),
            1024),
        new Case(
            "Ascend: template round-up, runtime info and predicate time",
            MakePod.named("npu-pod")
                .uid("u5")
                .limit("huawei.com/Ascend910B3", "1")
                .limit("huawei.com/Ascend910B3-memory", "10000")
                .obj(),
            "npu",
            id ->
                Map.of(
                    "hami.io/Ascend910B3-devices-to-allocate", id + ",Ascend910B3,16384,0:;",
                    "hami.io/Ascend910B3-devices-allocated", id + ",Ascend910B3,16384,0:;",
                    "huawei.com/Ascend910B3",
                        "[{\"UUID\":\""
                            + id
                            + "\",\"temp\":\"vir05_1c_16g\",\"memory\":16384,\"core\":5}]",
                    "predicate-time", Long.toString(NOW.getEpochSecond())),
            16384),
        new Case(
            "Hygon DCU: colon register, whole card by default",
            MakePod.named("dcu-pod")
                .uid("u6")
                .limit("hygon.com/dcunum", "1")
                .limit("hygon.com/dcumem", "2000")
                .obj(),
            "dcu",
            id -> Map.of("hami.io/dcu-devices-allocated", id + ",DCU,2000,100:;"),
            2000));
  }

  FakeHandle handle;
  VgpuPlugin plugin;
  PluginHarness harness;

  @BeforeEach
  void setUp() throws IOException {
    Path config = dir.resolve("device-config.yaml");
    Files.writeString(config, DEVICE_CONFIG);
    handle = new FakeHandle("hami-scheduler", new FakeClock(NOW));
    plugin = VgpuPlugin.create(args(config), handle, new SharedGpuState());
    List<Node> nodes = List.of(nvidiaNode(), mluNode(), iluvatarNode(), ascendNode(), hygonNode());
    nodes.forEach(handle::fireNodeAdd);
    harness =
        PluginHarness.create()
            .plugin(plugin)
            .nodes(nodes.stream().map(NodeInfo::of).toArray(NodeInfo[]::new));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void podLandsOnItsVendorsNodeWithTheVendorsAnnotations(Case c) {
    PluginHarness.Result r = harness.run(c.pod());
    assertThat(r.feasible()).as("feasible").containsExactly(c.node());
    assertThat(harness.reserve(r.state(), c.pod(), c.node()).isSuccess()).isTrue();
    Placement p = r.state().require(VgpuPlugin.RESERVED).placement();
    String id = p.containers().get(0).get(0).id();
    Map<String, String> annos = BindingAnnotations.of(p, NOW, plugin.vendors());
    assertThat(annos)
        .containsAllEntriesOf(c.want().apply(id))
        .containsEntry(Annotations.VGPU_NODE, c.node());
    // No other vendor's allocation keys.
    assertThat(annos.keySet()).noneMatch(k -> k.startsWith("hami.io/vgpu-devices"));

    // Once the informer shows the annotated pod, its usage is read back from the vendor's key.
    Pod annotated =
        new PodBuilder(c.pod()).editMetadata().addToAnnotations(annos).endMetadata().build();
    harness.unreserve(r.state(), c.pod(), c.node());
    assertThat(plugin.index().node(c.node()).device(id).usedMemMiB()).isZero();
    handle.firePodAdd(annotated);
    assertThat(plugin.index().node(c.node()).device(id).usedMemMiB()).isEqualTo(c.memMiB());
  }

  record Refusal(String name, Pod pod, String node, String reason) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Refusal> refusals() {
    return Stream.of(
        new Refusal(
            "MLU card too small",
            MakePod.named("big")
                .uid("r1")
                .limit("cambricon.com/vmlu", "1")
                .limit("cambricon.com/mlu.smlu.vmemory", "80")
                .obj(),
            "mlu",
            "CardInsufficientMemory"),
        new Refusal(
            "more MLU cards than the node has",
            MakePod.named("many")
                .uid("r2")
                .limit("cambricon.com/vmlu", "5")
                .limit("cambricon.com/mlu.smlu.vmemory", "1")
                .obj(),
            "mlu",
            "NodeInsufficientDevice"),
        new Refusal(
            "Iluvatar UUID excluded",
            MakePod.named("nouse")
                .uid("r3")
                .annotation("hami.io/no-use-BI-V150-uuid", "GPU-ilu-0,GPU-ilu-1")
                .limit("iluvatar.ai/BI-V150-vgpu", "1")
                .obj(),
            "ilu",
            "CardUuidMismatch"),
        new Refusal(
            "more Ascend chips than the node has",
            MakePod.named("odd")
                .uid("r4")
                .limit("huawei.com/Ascend910B3", "3")
                .limit("huawei.com/Ascend910B3-memory", "65536")
                .obj(),
            "npu",
            "NodeInsufficientDevice"));
  }

  @Test
  void ascendPartialChipOnSeveralDevices_isRejectedWithTheField() {
    PluginHarness.Result r =
        harness.run(
            MakePod.named("split")
                .uid("r5")
                .limit("huawei.com/Ascend910B3", "2")
                .limit("huawei.com/Ascend910B3-memory", "10000")
                .obj());
    assertThat(r.preFilterStatus().code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(r.preFilterStatus().message()).contains("huawei.com/Ascend910B3");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void refusalsCarryHamiReasonCodes(Refusal c) {
    PluginHarness.Result r = harness.run(c.pod());
    assertThat(r.selected()).isNull();
    assertThat(r.filterStatuses().get(c.node()).reasons()).contains(c.reason());
  }
}
