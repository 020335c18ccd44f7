package io.hami.plugins.numa;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.PluginHarness;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.VgpuArgs;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.util.List;
import org.junit.jupiter.api.Test;

final class NumaPluginTest {

  final FakeHandle handle = new FakeHandle();
  final SharedGpuState shared = new SharedGpuState();
  final VgpuPlugin vgpu = VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, shared);

  // split: one GPU per NUMA node; packed: both GPUs on NUMA node 0.
  final Node split =
      MakeGpuNode.named("split")
          .gpus(List.of(FakeGpus.t4("split", 0, 0), FakeGpus.t4("split", 1, 1)))
          .obj();
  final Node packed =
      MakeGpuNode.named("packed")
          .gpus(List.of(FakeGpus.t4("packed", 0, 0), FakeGpus.t4("packed", 1, 0)))
          .obj();

  PluginHarness harness(String policy) {
    handle.fireNodeAdd(split);
    handle.fireNodeAdd(packed);
    return PluginHarness.create()
        .plugin(vgpu)
        .plugin(NumaPlugin.create(new NumaArgs(policy), handle, shared))
        .nodes(NodeInfo.of(split), NodeInfo.of(packed));
  }

  @Test
  void bestEffort_prefersAlignedNode() {
    PluginHarness.Result r =
        harness("BestEffort").run(MakeGpuPod.named("p").gpus(2).gpuMemMiB(100).obj());
    assertThat(r.feasible()).containsExactly("split", "packed");
    assertThat(r.selected()).isEqualTo("packed");
  }

  @Test
  void singleNumaNode_rejectsSplitNode() {
    PluginHarness.Result r =
        harness("SingleNumaNode").run(MakeGpuPod.named("p").gpus(2).gpuMemMiB(100).obj());
    assertThat(r.feasible()).containsExactly("packed");
    assertThat(r.filterStatuses().get("split").reasons()).containsExactly("NumaNotFit");
  }

  @Test
  void numaBindAnnotation_isEnforcedByVgpu() {
    PluginHarness.Result r =
        harness("None").run(MakeGpuPod.named("p").gpus(2).gpuMemMiB(100).numaBind().obj());
    assertThat(r.feasible()).containsExactly("packed");
  }

  @Test
  void singleGpuPods_scoreAllNodesAlike() {
    PluginHarness.Result r =
        harness("BestEffort").run(MakeGpuPod.named("p").gpus(1).gpuMemMiB(100).obj());
    assertThat(r.feasible()).hasSize(2);
  }
}
