package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.Snapshot;
import io.hami.framework.testing.FakeHandle;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random create, bind and delete events on 100 nodes with mixed GPU shapes: after every step no
 * device is over-committed in memory, cores or slots, computed from the annotations alone, and no
 * pod holds devices of another node than its own.
 */
final class UsagePropertyTest {

  static final int NODES = 100;
  static final int EVENTS = 12_000;
  static final int DRY_RUNS = 1_500;

  final FakeHandle handle = new FakeHandle();
  final VgpuPlugin plugin = VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, new SharedGpuState());
  final Random rnd = new Random(20261129L);
  final Map<String, Node> nodes = new LinkedHashMap<>();
  final List<NodeInfo> infos = new ArrayList<>();
  final Map<String, Pod> bound = new LinkedHashMap<>();
  final Map<String, List<String>> podsByNode = new HashMap<>();
  int seq;

  /** Adds {@link #NODES} nodes of random GPU shapes; returns their snapshot. */
  Snapshot addNodes() {
    for (int i = 0; i < NODES; i++) {
      String name = "n" + i;
      List<NodeDevice> gpus = new ArrayList<>();
      int count = 1 + rnd.nextInt(8);
      int split = 2 + rnd.nextInt(9);
      boolean a100 = rnd.nextBoolean();
      for (int g = 0; g < count; g++) {
        gpus.add(
            FakeGpus.gpu(
                name,
                g,
                a100 ? "NVIDIA-A100" : "NVIDIA-Tesla T4",
                a100 ? 40960 : 15360,
                split,
                g * 2 / count));
      }
      Node n = MakeGpuNode.named(name).gpus(gpus).obj();
      nodes.put(name, n);
      infos.add(NodeInfo.of(n));
      handle.fireNodeAdd(n);
    }
    return Snapshot.of(infos);
  }

  @Test
  void randomEvents_neverOverCommit() {
    Snapshot snapshot = addNodes();
    int created = 0;
    int placed = 0;
    int deleted = 0;
    for (int step = 0; step < EVENTS; step++) {
      String touched;
      if (bound.isEmpty() || rnd.nextInt(100) < 60) {
        Pod pod = randomPod();
        created++;
        touched = schedule(pod, snapshot);
        if (touched != null) {
          placed++;
        }
      } else {
        List<String> uids = new ArrayList<>(bound.keySet());
        Pod victim = bound.remove(uids.get(rnd.nextInt(uids.size())));
        touched = victim.getMetadata().getAnnotations().get(Annotations.VGPU_NODE);
        podsByNode.get(touched).remove(victim.getMetadata().getUid());
        deleted++;
        if (rnd.nextBoolean()) {
          handle.firePodDelete(victim);
        } else {
          Pod done =
              new PodBuilder(victim).editOrNewStatus().withPhase("Succeeded").endStatus().build();
          handle.firePodUpdate(victim, done);
        }
      }
      if (touched != null) {
        checkNode(touched);
      }
      if (step % 1000 == 999) {
        nodes.keySet().forEach(this::checkNode);
      }
    }
    assertThat(created + deleted).isGreaterThanOrEqualTo(10_000);
    assertThat(placed).isGreaterThan(1000);
    assertThat(deleted).isGreaterThan(1000);
  }

  /**
   * Random preemption dry runs on a filled cluster: a random preemptor, random victims of one node
   * removed through RemovePod, some reprieved through AddPod, sometimes a pod nominated to the node
   * added. The overlay's view of the node never over-commits, and equals the index's view (and the
   * namespace's quota usage) once the remaining victims are really released and the nominated pod
   * is really reserved with the share the overlay held for it.
   */
  @Test
  void randomDryRuns_neverOverCommitAndMatchRealRelease() {
    Snapshot snapshot = addNodes();
    for (int i = 0; i < 3000; i++) {
      schedule(randomPod(), snapshot);
    }
    int freed = 0;
    int nominatedHeld = 0;
    for (int round = 0; round < DRY_RUNS; round++) {
      NodeInfo info = infos.get(rnd.nextInt(infos.size()));
      String node = info.name();
      List<String> onNode = podsByNode.getOrDefault(node, List.of());
      Pod preemptor = randomPod();
      CycleState state = new CycleState();
      check(plugin.preFilter(state, preemptor, snapshot).status().isSuccess(), "prefilter");
      CycleState dry = state.copy();

      List<String> removed = new ArrayList<>();
      for (String uid : onNode) {
        if (rnd.nextInt(3) == 0) {
          removed.add(uid);
          check(
              plugin.removePod(dry, preemptor, PodInfo.of(bound.get(uid)), info).isSuccess(),
              "removePod");
        }
      }
      for (String uid : new ArrayList<>(removed)) {
        if (rnd.nextInt(4) == 0) {
          removed.remove(uid);
          check(
              plugin.addPod(dry, preemptor, PodInfo.of(bound.get(uid)), info).isSuccess(),
              "addPod");
        }
      }
      Pod nominated = null;
      if (rnd.nextBoolean()) {
        nominated = randomPod();
        check(plugin.addPod(dry, preemptor, PodInfo.of(nominated), info).isSuccess(), "addPod");
      }
      NodeDevices view = UsageOverlay.view(dry, plugin.index(), info);
      for (DeviceUsage d : view.devices()) {
        check(!d.overCommitted(), "dry run over-commits %s", d);
        check(d.usedSlots() >= 0 && d.usedMemMiB() >= 0 && d.usedCores() >= 0, "negative %s", d);
      }
      UsageOverlay overlay = dry.require(VgpuPlugin.REQUESTS).overlay();
      NamespaceUsage nsView =
          overlay == null
              ? plugin.index().namespace("default")
              : overlay.namespace("default", plugin.index().namespace("default"));
      // The overlay leaves the index alone.
      check(
          plugin.index().node(node).devices().equals(view.devices()) || overlay != null,
          "no overlay but a changed view");

      // Now for real: release the victims whose allocation is done (the dry run keeps the others'
      // devices), reserve the nominated pod's share.
      for (String uid : removed) {
        if (UsageOverlay.allocating(bound.get(uid), false)) {
          check(overlay == null || overlay.change(uid) == null, "in-flight %s freed", uid);
          continue;
        }
        Pod victim = bound.remove(uid);
        podsByNode.get(node).remove(uid);
        if (rnd.nextBoolean()) {
          handle.firePodDelete(victim);
        } else {
          handle.firePodUpdate(
              victim,
              new PodBuilder(victim).editOrNewStatus().withPhase("Failed").endStatus().build());
        }
        freed++;
      }
      String nominatedUid = nominated == null ? null : nominated.getMetadata().getUid();
      UsageOverlay.Change held =
          overlay == null || nominatedUid == null ? null : overlay.change(nominatedUid);
      if (held != null) {
        nominatedHeld++;
        plugin.index().reserve(nominatedUid, "default", node, held.usage());
      }
      NodeDevices real = plugin.index().node(node);
      for (int d = 0; d < real.devices().size(); d++) {
        DeviceUsage r = real.devices().get(d);
        DeviceUsage v = view.devices().get(d);
        check(
            r.usedSlots() == v.usedSlots()
                && r.usedMemMiB() == v.usedMemMiB()
                && r.usedCores() == v.usedCores()
                && r.migUsed().equals(v.migUsed()),
            "round %s: overlay %s, released %s",
            round,
            v,
            r);
      }
      check(
          nsView.equals(plugin.index().namespace("default")),
          "namespace usage: overlay %s, released %s",
          nsView,
          plugin.index().namespace("default"));
      if (held != null) {
        plugin.index().unreserve(nominatedUid);
      }
      checkNode(node);
    }
    assertThat(freed).isGreaterThan(500);
    assertThat(nominatedHeld).isGreaterThan(20);
  }

  Pod randomPod() {
    String name = "p" + (seq++);
    MakeGpuPod p = MakeGpuPod.named(name).namespace("default");
    switch (rnd.nextInt(6)) {
      case 0 -> p.gpus(1).gpuMemMiB(256 * (1 + rnd.nextInt(32))).gpuCores(rnd.nextInt(60));
      case 1 -> p.gpus(1).gpuMemPercent(10 * (1 + rnd.nextInt(10)));
      case 2 -> p.gpus(1); // whole card, exclusive
      case 3 -> p.gpus(2 + rnd.nextInt(3)).gpuMemMiB(1024 * (1 + rnd.nextInt(8))).gpuCores(10);
      case 4 ->
          p.container("a")
              .gpus(1)
              .gpuMemMiB(2048)
              .gpuCores(20)
              .container("b")
              .gpus(1)
              .gpuMemMiB(1024)
              .gpuCores(10);
      default ->
          p.initContainer("init")
              .gpus(1)
              .gpuMemMiB(4096)
              .gpuCores(50)
              .container("main")
              .gpus(1)
              .gpuMemMiB(1024)
              .gpuCores(10);
    }
    if (rnd.nextInt(4) == 0) {
      p.gpuPolicy(rnd.nextBoolean() ? "binpack" : "spread");
    }
    return p.obj();
  }

  /** Schedules the pod on a random feasible node and binds it; returns the node or null. */
  String schedule(Pod pod, Snapshot snapshot) {
    CycleState state = new CycleState();
    PreFilterResult pf = plugin.preFilter(state, pod, snapshot);
    check(pf.status().isSuccess(), "prefilter %s", pf.status());
    List<String> feasible = new ArrayList<>();
    for (NodeInfo n : infos) {
      if (plugin.filter(state, pod, n).isSuccess()) {
        feasible.add(n.name());
      }
    }
    if (feasible.isEmpty()) {
      return null;
    }
    String node = feasible.get(rnd.nextInt(feasible.size()));
    check(plugin.reserve(state, pod, node).isSuccess(), "reserve after filter on %s", node);
    Placement p = state.require(VgpuPlugin.RESERVED).placement();
    Map<String, String> annos = new LinkedHashMap<>(BindingAnnotations.of(p, 1));
    if (rnd.nextInt(5) > 0) {
      // Most pods were served by the node agent; the others' allocation is still in flight.
      annos.put(Annotations.BIND_PHASE, BindPhase.SUCCESS.wire());
    }
    if (rnd.nextInt(10) == 0) {
      // Sometimes binding fails before the annotations are written.
      plugin.unreserve(state, pod, node);
      return node;
    }
    Pod boundPod =
        new PodBuilder(pod)
            .editMetadata()
            .addToAnnotations(annos)
            .endMetadata()
            .editSpec()
            .withNodeName(node)
            .endSpec()
            .build();
    // Informer order varies: sometimes the pod is seen before the patch lands.
    if (rnd.nextBoolean()) {
      handle.firePodUpdate(pod, pod);
    }
    handle.firePodUpdate(pod, boundPod);
    bound.put(boundPod.getMetadata().getUid(), boundPod);
    podsByNode.computeIfAbsent(node, k -> new ArrayList<>()).add(boundPod.getMetadata().getUid());
    return node;
  }

  static void check(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new AssertionError(String.format(format, args));
    }
  }

  /** Recomputes the node's usage from register and pod annotations alone. */
  void checkNode(String name) {
    Node n = nodes.get(name);
    List<NodeDevice> devices =
        NodeDeviceJson.decode(
                n.getMetadata().getAnnotations().get(Annotations.NODE_NVIDIA_REGISTER))
            .orElse(List.of());
    Map<String, int[]> used = new HashMap<>();
    Map<String, NodeDevice> byId = new HashMap<>();
    for (NodeDevice d : devices) {
      byId.put(d.id(), d);
      used.put(d.id(), new int[3]);
    }
    for (String uid : podsByNode.getOrDefault(name, List.of())) {
      Pod pod = bound.get(uid);
      check(
          name.equals(pod.getMetadata().getAnnotations().get(Annotations.VGPU_NODE)),
          "pod %s attributed elsewhere",
          uid);
      PodDevices pd =
          PodDevicesCodec.decode(
                  pod.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED))
              .orElse(PodDevices.empty());
      int init =
          pod.getSpec().getInitContainers() == null ? 0 : pod.getSpec().getInitContainers().size();
      Map<String, int[]> initMax = new HashMap<>();
      Map<String, int[]> appSum = new HashMap<>();
      for (int c = 0; c < pd.size(); c++) {
        for (ContainerDevice d : pd.container(c)) {
          check(byId.containsKey(d.uuid()), "pod %s holds %s of another node", uid, d.uuid());
          if (c < init) {
            int[] u = initMax.computeIfAbsent(d.uuid(), k -> new int[3]);
            u[0] = 1;
            u[1] = Math.max(u[1], d.usedmem());
            u[2] = Math.max(u[2], d.usedcores());
          } else {
            int[] u = appSum.computeIfAbsent(d.uuid(), k -> new int[3]);
            u[0]++;
            u[1] += d.usedmem();
            u[2] += d.usedcores();
          }
        }
      }
      for (String id : byId.keySet()) {
        int[] a = initMax.getOrDefault(id, new int[3]);
        int[] b = appSum.getOrDefault(id, new int[3]);
        if (a[0] + b[0] == 0) {
          continue;
        }
        int[] u = used.get(id);
        u[0] += Math.max(Math.max(a[0], b[0]), 1);
        u[1] += Math.max(a[1], b[1]);
        u[2] += Math.max(a[2], b[2]);
      }
    }
    for (NodeDevice d : devices) {
      int[] u = used.get(d.id());
      check(u[0] <= d.count(), "slots of %s: %s > %s", d.id(), u[0], d.count());
      check(u[1] <= d.devmem(), "memory of %s: %s > %s", d.id(), u[1], d.devmem());
      check(u[2] <= d.devcore(), "cores of %s: %s > %s", d.id(), u[2], d.devcore());
      // The incremental index agrees with the annotations.
      DeviceUsage view = plugin.index().node(name).device(d.id());
      check(
          view.usedSlots() == u[0] && view.usedMemMiB() == u[1] && view.usedCores() == u[2],
          "index of %s: %s, annotations: %s",
          d.id(),
          view,
          Arrays.toString(u));
    }
  }
}
