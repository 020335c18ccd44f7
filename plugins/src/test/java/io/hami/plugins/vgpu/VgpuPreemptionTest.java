package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.testing.FakeHandle;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.model.device.NodeDevice;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The vGPU plugin under preemption dry runs (PreFilterExtensions): node {@code n1} has 8 GPUs of 80
 * GiB, each full of eight 10 GiB pods with 10 cores ({@code g<gpu>-<k>}); the pods of GPU 0 are in
 * namespace {@code team}, the others in {@code low}. Node {@code n2} has 2 GPUs: GPU 0 is held
 * whole by pod {@code ex}, GPU 1 by eight 10 GiB pods ({@code h1-<k>}).
 */
final class VgpuPreemptionTest {

  static final int GPU_MIB = 81920;
  static final int POD_MIB = 10240;

  final FakeHandle handle = new FakeHandle();
  final SharedGpuState shared = new SharedGpuState();
  final NamespaceQuotas quotas = NamespaceQuotas.of(VgpuArgs.DEFAULTS.vendors());
  final VgpuPlugin plugin =
      new VgpuPlugin(
          VgpuArgs.DEFAULTS,
          handle,
          shared.index(handle, VgpuArgs.DEFAULTS.vendors()),
          shared.metrics(handle),
          quotas);
  final Map<String, Pod> pods = new LinkedHashMap<>();
  final Map<String, NodeInfo> nodes = new LinkedHashMap<>();

  VgpuPreemptionTest() {
    addNode("n1", 8);
    addNode("n2", 2);
    for (int g = 0; g < 8; g++) {
      for (int k = 0; k < 8; k++) {
        bind(held("g" + g + "-" + k, g == 0 ? "team" : "low", "n1", 10, g, POD_MIB));
      }
    }
    bind(held("ex", "low", "n2", 100, 0, GPU_MIB));
    for (int k = 0; k < 8; k++) {
      bind(held("h1-" + k, "low", "n2", 10, 1, POD_MIB));
    }
  }

  void addNode(String name, int gpus) {
    List<NodeDevice> devices = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      devices.add(FakeGpus.gpu(name, g, "NVIDIA-H100", GPU_MIB, 10, 0));
    }
    Node n = MakeGpuNode.named(name).gpus(devices).obj();
    handle.fireNodeAdd(n);
    nodes.put(name, NodeInfo.of(n));
  }

  /** A bound pod holding {@code mem} MiB and {@code cores} on GPU {@code gpu} of {@code node}. */
  static Pod held(String name, String ns, String node, int cores, int gpu, int mem) {
    String entry = FakeGpus.uuid(node, gpu) + ",NVIDIA," + mem + "," + cores + ":;";
    return MakeGpuPod.named(name)
        .namespace(ns)
        .gpus(1)
        .gpuMemMiB(mem)
        .gpuCores(cores)
        .nodeName(node)
        .annotation(Annotations.VGPU_NODE, node)
        .annotation(Annotations.VGPU_DEVICES_TO_ALLOCATE, entry)
        .annotation(Annotations.VGPU_DEVICES_ALLOCATED, entry)
        .annotation(Annotations.BIND_PHASE, BindPhase.SUCCESS.wire())
        .obj();
  }

  void bind(Pod p) {
    pods.put(p.getMetadata().getName(), p);
    handle.firePodAdd(p);
  }

  static Pod preemptor(String ns, int gpus, int mem, int cores) {
    MakeGpuPod p = MakeGpuPod.named("preemptor").namespace(ns).gpus(gpus);
    if (mem > 0) {
      p.gpuMemMiB(mem);
    }
    if (cores > 0) {
      p.gpuCores(cores);
    }
    return p.obj();
  }

  CycleState preFilter(Pod preemptor) {
    CycleState state = new CycleState();
    assertThat(
            plugin
                .preFilter(state, preemptor, Snapshot.of(List.copyOf(nodes.values())))
                .status()
                .isSuccess())
        .isTrue();
    return state;
  }

  /** Removes the named pods from their node in {@code state}, as preemption does for victims. */
  void remove(CycleState state, Pod preemptor, String node, String... victims) {
    for (String v : victims) {
      Status s = plugin.removePod(state, preemptor, PodInfo.of(pods.get(v)), nodes.get(node));
      assertThat(s.isSuccess()).isTrue();
    }
  }

  void add(CycleState state, Pod preemptor, String node, Pod... added) {
    for (Pod p : added) {
      assertThat(plugin.addPod(state, preemptor, PodInfo.of(p), nodes.get(node)).isSuccess())
          .isTrue();
    }
  }

  static String[] onGpu(int gpu, int count) {
    String[] out = new String[count];
    for (int k = 0; k < count; k++) {
      out[k] = "g" + gpu + "-" + k;
    }
    return out;
  }

  static String[] oneEach(int... gpus) {
    String[] out = new String[gpus.length];
    for (int i = 0; i < gpus.length; i++) {
      out[i] = "g" + gpus[i] + "-0";
    }
    return out;
  }

  static String[] concat(String[] a, String[] b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  record Case(
      String name, Pod preemptor, String node, String[] victims, @Nullable String wantReason) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Case c(String name, Pod preemptor, String[] victims, @Nullable String wantReason) {
    return new Case(name, preemptor, "n1", victims, wantReason);
  }

  static final Pod FORTY = preemptor("low", 1, 40960, 0);

  static Stream<Case> cases() {
    return Stream.of(
        c("nothing removed: full", FORTY, new String[0], "CardInsufficientMemory"),
        c("4 pods on one GPU free 40 GiB there", FORTY, onGpu(3, 4), null),
        c("3 pods on one GPU are not enough", FORTY, onGpu(3, 3), "CardInsufficientMemory"),
        c(
            "4 pods spread over 4 GPUs free 10 GiB on each",
            FORTY,
            oneEach(1, 2, 3, 4),
            "CardInsufficientMemory"),
        c(
            "2 GPUs x 60 GiB: 6 pods on each of two GPUs",
            preemptor("low", 2, 61440, 0),
            concat(onGpu(1, 6), onGpu(2, 6)),
            null),
        c(
            "2 GPUs x 60 GiB: 6 and 5 pods",
            preemptor("low", 2, 61440, 0),
            concat(onGpu(1, 6), onGpu(2, 5)),
            "AllocatedCardsInsufficientRequest, CardInsufficientMemory"),
        c(
            "2 GPUs x 60 GiB: 12 pods of one GPU only",
            preemptor("low", 2, 61440, 0),
            concat(onGpu(1, 8), onGpu(2, 4)),
            "AllocatedCardsInsufficientRequest, CardInsufficientMemory"),
        c(
            "cores: 2 pods free 40 of the 50 cores asked",
            preemptor("low", 1, 1024, 50),
            onGpu(5, 2),
            "CardInsufficientCore, CardInsufficientMemory"),
        c("cores: 3 pods free 50 cores", preemptor("low", 1, 1024, 50), onGpu(5, 3), null),
        c("whole card: every pod of a GPU removed", preemptor("low", 1, 0, 100), onGpu(6, 8), null),
        c(
            "whole card: one pod left on the GPU",
            preemptor("low", 1, 0, 100),
            onGpu(6, 7),
            "CardInsufficientMemory"),
        new Case("exclusive holder removed", FORTY, "n2", new String[] {"ex"}, null),
        new Case(
            "exclusive holder kept",
            FORTY,
            "n2",
            new String[] {"h1-0", "h1-1"},
            "CardInsufficientMemory"),
        c(
            "quota: victims of another namespace free the GPU, not the quota",
            preemptor("team", 1, 40960, 0),
            onGpu(3, 4),
            "ResourceQuotaNotFit"),
        c(
            "quota: victims of the preemptor's namespace free the quota too",
            preemptor("team", 1, 40960, 0),
            onGpu(0, 4),
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void dryRun(Case c) {
    quotas.upsert(QuotaFitTest.quota("team", "gpu", Map.of("limits.nvidia.com/gpumem", "90000")));
    CycleState state = preFilter(c.preemptor());
    CycleState dry = state.copy();
    remove(dry, c.preemptor(), c.node(), c.victims());

    Status s = plugin.filter(dry, c.preemptor(), nodes.get(c.node()));
    if (c.wantReason() == null) {
      assertThat(s.isSuccess()).as(s.message()).isTrue();
    } else {
      assertThat(s.isSuccess()).isFalse();
      assertThat(s.message()).isEqualTo(c.wantReason());
    }
    // The state the dry run copied is untouched, and the index too.
    assertThat(plugin.filter(state, c.preemptor(), nodes.get(c.node())).isSuccess()).isFalse();
    assertThat(plugin.index().node(c.node()).devices())
        .allSatisfy(d -> assertThat(d.usedMemMiB()).isEqualTo(GPU_MIB));
  }

  record InFlight(String name, UnaryOperator<Pod> change, boolean assumed) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<InFlight> inFlight() {
    return Stream.of(
        new InFlight(
            "bind-phase allocating",
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .addToAnnotations(Annotations.BIND_PHASE, BindPhase.ALLOCATING.wire())
                    .endMetadata()
                    .build(),
            false),
        new InFlight("assumed by the scheduler", p -> p, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inFlight")
  void podWhoseAllocationIsInFlight_isNeverFreed(InFlight c) {
    Pod victim = c.change().apply(pods.get("g3-0"));
    handle.firePodUpdate(pods.get("g3-0"), victim);
    pods.put("g3-0", victim);
    CycleState dry = preFilter(FORTY).copy();
    remove(dry, FORTY, "n1", "g3-1", "g3-2", "g3-3");
    PodInfo info = PodInfo.of(victim).withAssumed(c.assumed());
    plugin.removePod(dry, FORTY, info, nodes.get("n1"));

    assertThat(plugin.filter(dry, FORTY, nodes.get("n1")).isSuccess()).isFalse();
    // The reprieve step adds it back: nothing changes.
    plugin.addPod(dry, FORTY, info, nodes.get("n1"));
    assertThat(plugin.filter(dry, FORTY, nodes.get("n1")).isSuccess()).isFalse();
    remove(dry, FORTY, "n1", "g3-4");
    assertThat(plugin.filter(dry, FORTY, nodes.get("n1")).isSuccess()).isTrue();
  }

  @Test
  void podReservedButNotYetAnnotated_isNeverFreed() {
    // A pod this scheduler reserved on n2's GPU 1 and whose annotations are not written yet.
    Pod pending = MakeGpuPod.named("pending").namespace("low").gpus(1).gpuMemMiB(POD_MIB).obj();
    handle.firePodDelete(pods.get("h1-7"));
    CycleState own = preFilter(pending);
    assertThat(plugin.reserve(own, pending, "n2").isSuccess()).isTrue();
    assertThat(plugin.index().counted("uid-pending").assumed()).isTrue();

    CycleState dry = preFilter(FORTY).copy();
    remove(dry, FORTY, "n2", "h1-0", "h1-1", "h1-2");
    plugin.removePod(dry, FORTY, PodInfo.of(pending), nodes.get("n2"));
    assertThat(plugin.filter(dry, FORTY, nodes.get("n2")).isSuccess()).isFalse();
    remove(dry, FORTY, "n2", "h1-3");
    assertThat(plugin.filter(dry, FORTY, nodes.get("n2")).isSuccess()).isTrue();
  }

  @Test
  void reprievedVictim_getsItsDevicesBack() {
    CycleState dry = preFilter(FORTY).copy();
    remove(dry, FORTY, "n1", onGpu(2, 4));
    assertThat(plugin.filter(dry, FORTY, nodes.get("n1")).isSuccess()).isTrue();
    add(dry, FORTY, "n1", pods.get("g2-1"));
    assertThat(plugin.filter(dry, FORTY, nodes.get("n1")).message())
        .isEqualTo("CardInsufficientMemory");
    // Adding it twice, or adding a pod the index counts, changes nothing.
    add(dry, FORTY, "n1", pods.get("g2-1"), pods.get("g2-6"));
    remove(dry, FORTY, "n1", "g2-5");
    assertThat(plugin.filter(dry, FORTY, nodes.get("n1")).isSuccess()).isTrue();
  }

  @Test
  void nominatedPod_holdsItsShareOnTheOverlay() {
    CycleState dry = preFilter(FORTY).copy();
    remove(dry, FORTY, "n1", onGpu(4, 4));
    assertThat(plugin.filter(dry, FORTY, nodes.get("n1")).isSuccess()).isTrue();

    // A pod nominated to n1 after an earlier preemption, not placed yet, takes the freed share.
    Pod nominated = MakeGpuPod.named("nominated").namespace("low").gpus(1).gpuMemMiB(20480).obj();
    add(dry, FORTY, "n1", nominated);
    assertThat(plugin.filter(dry, FORTY, nodes.get("n1")).message())
        .isEqualTo("CardInsufficientMemory");
    assertThat(dry.require(VgpuPlugin.REQUESTS).overlay().change("uid-nominated").node())
        .isEqualTo("n1");

    // One that fits nowhere on the node is ignored.
    CycleState other = preFilter(FORTY).copy();
    remove(other, FORTY, "n1", onGpu(4, 4));
    add(other, FORTY, "n1", MakeGpuPod.named("huge").gpus(1).gpuMemMiB(61440).obj());
    assertThat(other.require(VgpuPlugin.REQUESTS).overlay().change("uid-huge")).isNull();
    assertThat(plugin.filter(other, FORTY, nodes.get("n1")).isSuccess()).isTrue();

    // A pod without devices changes nothing.
    add(other, FORTY, "n1", MakeGpuPod.named("cpu").obj());
    assertThat(plugin.filter(other, FORTY, nodes.get("n1")).isSuccess()).isTrue();
  }

  @Test
  void cycleStateCopies_areIsolated() {
    CycleState state = preFilter(FORTY);
    CycleState a = state.copy();
    remove(a, FORTY, "n1", onGpu(7, 4));
    CycleState b = a.copy();
    add(b, FORTY, "n1", pods.get("g7-0"));

    assertThat(plugin.filter(a, FORTY, nodes.get("n1")).isSuccess()).isTrue();
    assertThat(plugin.filter(b, FORTY, nodes.get("n1")).isSuccess()).isFalse();
    assertThat(plugin.filter(state, FORTY, nodes.get("n1")).isSuccess()).isFalse();
    assertThat(state.require(VgpuPlugin.REQUESTS).overlay()).isNull();
    // Verdicts computed under an overlay are never reused for other states.
    assertThat(plugin.equivalenceClass(state, FORTY)).isNotNull();
    assertThat(plugin.equivalenceClass(a, FORTY)).isNull();
  }

  @Test
  void preemptorWithoutDevices_keepsNoOverlay() {
    Pod cpu = MakeGpuPod.named("cpu").obj();
    CycleState state = new CycleState();
    plugin.preFilter(state, cpu, Snapshot.of(List.copyOf(nodes.values())));
    CycleState dry = state.copy();
    remove(dry, cpu, "n1", onGpu(0, 8));
    assertThat(dry.get(VgpuPlugin.REQUESTS)).isNull();
    assertThat(plugin.filter(dry, cpu, nodes.get("n1")).isSuccess()).isTrue();
  }

  @Test
  void scoreReadsTheOverlay() {
    Pod small = preemptor("low", 1, 1024, 0);
    CycleState state = preFilter(small);
    CycleState dry = state.copy();
    remove(dry, small, "n1", onGpu(1, 8));
    assertThat(plugin.score(dry, small, nodes.get("n1")))
        .isNotEqualTo(plugin.score(state, small, nodes.get("n1")));
  }

  /**
   * A victim's devices stay counted while it terminates, until it is deleted or reaches Succeeded
   * or Failed: the preemptor fits only once the shares are really free.
   */
  @Test
  void terminatingVictim_keepsItsDevicesUntilGone() {
    CycleState state = preFilter(FORTY);
    String[] victims = onGpu(3, 4);
    for (String v : victims) {
      Pod p = pods.get(v);
      Pod terminating =
          new PodBuilder(p)
              .editMetadata()
              .withDeletionTimestamp("2026-12-03T14:00:00Z")
              .withDeletionGracePeriodSeconds(30L)
              .endMetadata()
              .build();
      handle.firePodUpdate(p, terminating);
      pods.put(v, terminating);
    }
    assertThat(plugin.index().node("n1").device(FakeGpus.uuid("n1", 3)).usedMemMiB())
        .isEqualTo(GPU_MIB);
    assertThat(plugin.filter(state, FORTY, nodes.get("n1")).isSuccess()).isFalse();

    // Three are gone (deleted, Succeeded, Failed); the fourth still terminates.
    handle.firePodDelete(pods.get(victims[0]));
    terminal(victims[1], "Succeeded");
    terminal(victims[2], "Failed");
    assertThat(plugin.index().node("n1").device(FakeGpus.uuid("n1", 3)).usedMemMiB())
        .isEqualTo(GPU_MIB - 3 * POD_MIB);
    assertThat(plugin.filter(preFilter(FORTY), FORTY, nodes.get("n1")).isSuccess()).isFalse();

    handle.firePodDelete(pods.get(victims[3]));
    assertThat(plugin.filter(preFilter(FORTY), FORTY, nodes.get("n1")).isSuccess()).isTrue();
  }

  void terminal(String name, String phase) {
    Pod p = pods.get(name);
    Pod done = new PodBuilder(p).editOrNewStatus().withPhase(phase).endStatus().build();
    handle.firePodUpdate(p, done);
    pods.put(name, done);
  }
}
