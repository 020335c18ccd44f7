package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.Dev.dev;
import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.api.ExcludedNodes;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.MakeNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class FreeShareIndexTest {

  static VendorRequest nv(int nums, int mem, int cores) {
    return new VendorRequest("NVIDIA", nums, mem, VendorRequest.PERCENT_UNSET, cores);
  }

  static PodRequests single(VendorRequest r) {
    return PodRequests.single(r);
  }

  /** Two 10-way cards of 16384 MiB: one with 12000 MiB and 60 cores in use, one idle. */
  static List<DeviceUsage> halfUsed() {
    return List.of(
        dev("g0").count(10).used(3).mem(16384).usedMem(12000).usedCores(60).build(),
        dev("g1").index(1).count(10).mem(16384).build());
  }

  record Case(String name, List<DeviceUsage> devices, PodRequests pod, boolean wantExcluded) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    DeviceUsage busy = dev("b").count(10).used(10).mem(16384).build();
    return Stream.of(
        new Case("fits on the idle card", halfUsed(), single(nv(1, 16384, 100)), false),
        new Case("more memory than the freest card", halfUsed(), single(nv(1, 16385, 0)), true),
        new Case(
            "more cores than the most idle card",
            List.of(halfUsed().get(0)),
            single(nv(1, 1000, 50)),
            true),
        new Case("more cards than the node has", halfUsed(), single(nv(3, 100, 0)), true),
        new Case("two cards, both usable", halfUsed(), single(nv(2, 4000, 40)), false),
        new Case(
            "a card without a free slice does not count",
            List.of(busy, halfUsed().get(1)),
            single(nv(2, 100, 0)),
            true),
        new Case(
            "unhealthy and cordoned cards do not count",
            List.of(dev("u").unhealthy().build(), dev("c").index(1).cordoned().build()),
            single(nv(1, 100, 0)),
            true),
        new Case("a node without devices", List.of(), single(nv(1, 100, 0)), true),
        new Case(
            "another vendor's cards do not count",
            List.of(dev("d").vendor("DCU").type("DCU").build(), halfUsed().get(1)),
            single(nv(2, 100, 0)),
            true),
        new Case(
            "memory by percentage is left to Filter",
            List.of(busy.withUsage(0, 16384, 0)),
            single(new VendorRequest("NVIDIA", 1, 0, 50, 0)),
            false),
        new Case(
            "a later container that cannot fit",
            halfUsed(),
            PodRequests.of(List.of(List.of(nv(1, 100, 0)), List.of(nv(1, 20000, 0))), 0),
            true),
        new Case(
            "a MIG-mode card may hold several instances",
            List.of(dev("m").migProfiles().build()),
            single(nv(4, 100, 0)),
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void excludes(Case c) {
    Map<String, NodeDevices> views = new HashMap<>();
    views.put("n0", NodeDevices.of("n0", c.devices()));
    // A node with NVIDIA cards beside it: the index knows the vendor.
    views.put("n1", NodeDevices.of("n1", halfUsed()));
    FreeShareIndex index = new FreeShareIndex(n -> views.get(n.name()));
    List<NodeInfo> nodes =
        List.of(NodeInfo.of(MakeNode.named("n0").obj()), NodeInfo.of(MakeNode.named("n1").obj()));
    ExcludedNodes e = index.refresh(nodes, c.pod());
    assertThat(e != null && e.excluded(0)).isEqualTo(c.wantExcluded());
    if (c.wantExcluded()) {
      assertThat(NodePlacer.standard().feasible(views.get("n0"), c.pod(), PodGpuOptions.DEFAULT))
          .as("Filter rejects what the index excludes")
          .isNotNull();
    }
  }

  @Test
  void aRequestForAVendorNoNodeOffers_excludesNothing() {
    FreeShareIndex index = new FreeShareIndex(n -> NodeDevices.of(n.name(), halfUsed()));
    List<NodeInfo> nodes = List.of(NodeInfo.of(MakeNode.named("n0").obj()));
    assertThat(index.refresh(nodes, single(new VendorRequest("MLU", 1, 1, 101, 0)))).isNull();
  }

  @Test
  void aChangedNodeInfoIsReadAgain_anUnchangedOneIsNot() {
    Map<String, NodeDevices> views = new HashMap<>();
    views.put("n0", NodeDevices.of("n0", halfUsed()));
    int[] reads = new int[1];
    FreeShareIndex index =
        new FreeShareIndex(
            n -> {
              reads[0]++;
              return views.get(n.name());
            });
    NodeInfo first = NodeInfo.of(MakeNode.named("n0").obj()).withGeneration(1);
    PodRequests pod = single(nv(1, 16000, 0));
    assertThat(index.refresh(List.of(first), pod).excluded(0)).isFalse();
    reads[0] = 0;
    views.put("n0", NodeDevices.of("n0", List.of(halfUsed().get(0))));
    assertThat(index.refresh(List.of(first), pod).excluded(0))
        .as("the NodeInfo is unchanged: the index keeps what it read for it")
        .isFalse();
    assertThat(reads[0]).isZero();
    NodeInfo second = first.withGeneration(2);
    assertThat(index.refresh(List.of(second), pod).excluded(0)).isTrue();
    assertThat(reads[0]).isEqualTo(1);
  }

  /**
   * Random nodes, random usage and random pods: every node the index excludes is one the full
   * device fit rejects (a brute-force scan of every node), under every GPU policy; and the index
   * does exclude nodes on a busy cluster.
   */
  @Test
  void randomClusters_excludeOnlyNodesTheFitRejects() {
    Random rnd = new Random(20261204L);
    NodePlacer placer = NodePlacer.standard();
    List<PodGpuOptions> options =
        List.of(
            PodGpuOptions.DEFAULT,
            PodGpuOptions.DEFAULT.withGpuPolicy(GpuPolicy.BINPACK),
            PodGpuOptions.DEFAULT.withGpuPolicy(GpuPolicy.parse("mutex")),
            PodGpuOptions.DEFAULT.withGpuPolicy(GpuPolicy.parse("topology-aware")));
    Map<String, NodeDevices> views = new HashMap<>();
    FreeShareIndex index = new FreeShareIndex(n -> views.get(n.name()));
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      nodes.add(NodeInfo.of(MakeNode.named("n" + i).obj()));
    }
    int excluded = 0;
    int accepted = 0;
    for (int round = 0; round < 300; round++) {
      for (NodeInfo n : nodes) {
        views.put(n.name(), NodeDevices.of(n.name(), randomDevices(rnd)));
      }
      for (int p = 0; p < 20; p++) {
        PodRequests pod = randomPod(rnd);
        ExcludedNodes e = index.refresh(nodes, pod);
        for (int i = 0; i < nodes.size(); i++) {
          NodeDevices view = views.get(nodes.get(i).name());
          PodGpuOptions opts = options.get(rnd.nextInt(options.size()));
          boolean fits = placer.feasible(view, pod, opts) == null;
          if (e != null && e.excluded(i)) {
            excluded++;
            assertThat(fits).as("excluded node %s fits %s", view, pod).isFalse();
          } else if (fits) {
            accepted++;
          }
        }
      }
    }
    assertThat(excluded).isGreaterThan(10_000);
    assertThat(accepted).isGreaterThan(10_000);
  }

  static List<DeviceUsage> randomDevices(Random rnd) {
    int count = rnd.nextInt(9);
    List<DeviceUsage> out = new ArrayList<>();
    for (int g = 0; g < count; g++) {
      int slots = 1 + rnd.nextInt(10);
      int mem = rnd.nextBoolean() ? 16384 : 81920;
      Dev d =
          dev("g" + g)
              .index(g)
              .numa(g * 2 / Math.max(1, count))
              .count(slots)
              .used(rnd.nextInt(slots + 1))
              .mem(mem)
              .usedMem(rnd.nextInt(mem + 1))
              .usedCores(rnd.nextInt(101));
      if (rnd.nextInt(20) == 0) {
        d.vendor("DCU").type("DCU");
      }
      if (rnd.nextInt(30) == 0) {
        d.unhealthy();
      }
      if (rnd.nextInt(30) == 0) {
        d.cordoned();
      }
      out.add(d.build());
    }
    return out;
  }

  static PodRequests randomPod(Random rnd) {
    int containers = 1 + rnd.nextInt(2);
    List<List<VendorRequest>> all = new ArrayList<>();
    for (int c = 0; c < containers; c++) {
      int nums = 1 + rnd.nextInt(rnd.nextBoolean() ? 1 : 4);
      int cores = rnd.nextInt(5) == 0 ? 100 : rnd.nextInt(60);
      VendorRequest r =
          rnd.nextInt(6) == 0
              ? new VendorRequest("NVIDIA", nums, 0, 1 + rnd.nextInt(100), cores)
              : nv(nums, 1 + rnd.nextInt(40000), cores);
      all.add(List.of(r));
    }
    return PodRequests.of(all, rnd.nextInt(4) == 0 ? 1 : 0);
  }
}
