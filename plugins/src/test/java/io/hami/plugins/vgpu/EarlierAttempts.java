package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import io.hami.framework.testing.FakeHandle;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Fixtures for a pod scheduled again while the index still counts an earlier attempt for it
 * (unbound, carrying that attempt's annotations).
 *
 * <p>Nodes {@code n1} and {@code n2} have one T4 (15360 MiB) each; pod {@code p} (namespace {@code
 * team}) asks for 12 GiB, which its earlier attempt holds on {@code n1}; pod {@code v} holds 2 GiB
 * on {@code n2}, bound.
 */
public final class EarlierAttempts {

  public static final int MIB = 12288;

  private EarlierAttempts() {}

  /** One cluster; {@code earlier} says whether the index counts p's earlier attempt on n1. */
  public static final class Fixture {
    public final FakeHandle handle = new FakeHandle();
    public final VgpuPlugin plugin =
        VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, new SharedGpuState());
    public final List<NodeInfo> nodes = new ArrayList<>();
    public final Pod victim =
        holding("v", "low", "n2", 2048, BindPhase.SUCCESS).nodeName("n2").obj();
    public final Pod pod;

    public Fixture(boolean earlier) {
      for (String n : List.of("n1", "n2")) {
        Node node = MakeGpuNode.named(n).gpus(FakeGpus.t4s(n, 1)).obj();
        handle.fireNodeAdd(node);
        nodes.add(NodeInfo.of(node));
      }
      handle.firePodAdd(victim);
      pod = earlier ? attempt("n1") : asking("p");
      if (earlier) {
        handle.firePodAdd(pod);
      }
      handle.withSnapshot(snapshot());
    }

    /** Pod p as it is after an attempt on {@code node} wrote its annotations. */
    public Pod attempt(String node) {
      return holding("p", "team", node, MIB, BindPhase.ALLOCATING).obj();
    }

    /** Pod p bound to {@code node}, with the annotations its Binding carried. */
    public Pod bound(String node) {
      return holding("p", "team", node, MIB, BindPhase.ALLOCATING).nodeName(node).obj();
    }

    public DeviceUsageIndex index() {
      return plugin.index();
    }

    public Snapshot snapshot() {
      return Snapshot.of(nodes);
    }

    public NodeInfo node(String name) {
      return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    /** A cycle state after vgpu PreFilter for p. */
    public CycleState preFilter() {
      CycleState state = new CycleState();
      assertThat(plugin.preFilter(state, pod, snapshot()).status().isSuccess()).isTrue();
      return state;
    }

    /** What the index counts: per node, each device's used memory; p's entry; team's memory. */
    Counts counts() {
      Map<String, List<Integer>> mem = new TreeMap<>();
      for (NodeInfo n : nodes) {
        mem.put(
            n.name(),
            index().node(n.name()).devices().stream().map(DeviceUsage::usedMemMiB).toList());
      }
      return new Counts(mem, index().counted(uid()), index().namespace("team").memMiB("NVIDIA"));
    }

    /** Each node's view version: the index publishes a new one with every change. */
    Map<String, Long> versions() {
      Map<String, Long> out = new TreeMap<>();
      nodes.forEach(n -> out.put(n.name(), index().node(n.name()).version()));
      return out;
    }

    String uid() {
      return pod.getMetadata().getUid();
    }
  }

  record Counts(
      Map<String, List<Integer>> usedMem, DeviceUsageIndex.@Nullable Counted p, long teamMem) {}

  /** A pod of namespace team asking for the 12 GiB, placed nowhere yet. */
  public static Pod asking(String name) {
    return MakeGpuPod.named(name).namespace("team").gpus(1).gpuMemMiB(MIB).obj();
  }

  /** A pod holding {@code mem} MiB of {@code node}'s first T4, as its annotations say. */
  public static MakeGpuPod holding(String name, String ns, String node, int mem, BindPhase phase) {
    String entry = FakeGpus.uuid(node, 0) + ",NVIDIA," + mem + ",0:;";
    return MakeGpuPod.named(name)
        .namespace(ns)
        .gpus(1)
        .gpuMemMiB(mem)
        .annotation(Annotations.VGPU_NODE, node)
        .annotation(Annotations.VGPU_DEVICES_TO_ALLOCATE, entry)
        .annotation(Annotations.VGPU_DEVICES_ALLOCATED, entry)
        .annotation(Annotations.BIND_PHASE, phase.wire());
  }
}
