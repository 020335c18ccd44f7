package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.Dev.dev;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Protocol §10.10 and §10.11: device and node scores, comparators, weights and collapse. */
final class ScoreVectorsTest {

  static VendorRequest typed(String type, int nums, int mem, int pct, int cores) {
    return new VendorRequest(type, nums, mem, pct, cores);
  }

  @Test
  void deviceScore_V69_V70() {
    DeviceUsage d =
        dev("d")
            .type("type1")
            .count(10)
            .used(2)
            .cores(4)
            .usedCores(1)
            .mem(8192)
            .usedMem(2048)
            .build();
    assertThat(DeviceScores.device(d, List.of(), ScoringWeights.DEFAULT, false)).isEqualTo(7.0f);
    List<VendorRequest> rs =
        List.of(
            typed("type1", 4, 1024, VendorRequest.PERCENT_UNSET, 1),
            typed("type2", 1, 500, VendorRequest.PERCENT_UNSET, 1));
    assertThat(DeviceScores.device(d, rs, ScoringWeights.DEFAULT, false))
        .isCloseTo(11.75f, within(1e-5f));
  }

  @Test
  void deviceScore_V71_V72_percentages() {
    DeviceUsage d = dev("d").type("type1").count(10).cores(10).mem(10000).build();
    assertThat(
            DeviceScores.device(
                d, List.of(typed("type1", 1, 0, 50, 2)), ScoringWeights.DEFAULT, false))
        .isCloseTo(8.0f, within(1e-5f));
    List<VendorRequest> rs =
        List.of(
            typed("type1", 1, 0, 10, 1), typed("type1", 1, 0, 20, 2), typed("other", 1, 0, 50, 5));
    assertThat(DeviceScores.device(d, rs, ScoringWeights.DEFAULT, false))
        .isCloseTo(8.0f, within(1e-5f));
  }

  @Test
  void deviceScore_V73_weightsAndPolicies() {
    DeviceUsage a =
        dev("gpu-a")
            .type("t")
            .index(0)
            .count(10)
            .cores(100)
            .mem(100)
            .used(1)
            .usedCores(90)
            .usedMem(10)
            .build();
    DeviceUsage b =
        dev("gpu-b")
            .type("t")
            .index(1)
            .count(10)
            .cores(100)
            .mem(100)
            .used(7)
            .usedCores(10)
            .usedMem(20)
            .build();
    List<VendorRequest> rs = List.of(typed("t", 1, 0, 40, 0));
    assertThat(DeviceScores.device(a, rs, ScoringWeights.DEFAULT, false))
        .isCloseTo(16f, within(1e-4f));
    assertThat(DeviceScores.device(b, rs, ScoringWeights.DEFAULT, false))
        .isCloseTo(15f, within(1e-4f));
    ScoringWeights w = new ScoringWeights(1, 1, 3);
    float sa = DeviceScores.device(a, rs, w, false);
    float sb = DeviceScores.device(b, rs, w, false);
    assertThat(sa).isCloseTo(26f, within(1e-4f));
    assertThat(sb).isCloseTo(27f, within(1e-4f));
    // The fit takes the last device of the ascending order.
    assertThat(GpuPolicy.BINPACK.compare(a, sa, b, sb, false)).isNegative(); // binpack tries gpu-b
    assertThat(GpuPolicy.SPREAD.compare(a, sa, b, sb, false)).isPositive(); // spread tries gpu-a
  }

  @Test
  void deviceScore_byVendorCountsTheRequest_trap10() {
    DeviceUsage d = dev("d").type("NVIDIA-Tesla T4").count(10).cores(100).mem(1000).build();
    List<VendorRequest> rs =
        List.of(new VendorRequest("NVIDIA", 1, 500, VendorRequest.PERCENT_UNSET, 50));
    assertThat(DeviceScores.device(d, rs, ScoringWeights.DEFAULT, false)).isZero();
    assertThat(DeviceScores.device(d, rs, ScoringWeights.DEFAULT, true))
        .isCloseTo(11f, within(1e-4f));
  }

  @Test
  void nodeScore_V74_V75() {
    assertThat(
            DeviceScores.node(
                List.of(
                    dev("a")
                        .count(100)
                        .used(50)
                        .cores(100)
                        .usedCores(100)
                        .mem(100)
                        .usedMem(100)
                        .build(),
                    dev("b")
                        .count(150)
                        .used(75)
                        .cores(200)
                        .usedCores(200)
                        .mem(200)
                        .usedMem(200)
                        .build())))
        .isCloseTo(25f, within(1e-4f));
    assertThat(DeviceScores.node(List.of())).isZero();
    assertThat(DeviceScores.node(List.of(dev("a").count(0).build()))).isZero();
    assertThat(
            DeviceScores.node(
                List.of(
                    dev("a")
                        .count(10)
                        .used(5)
                        .mem(8000)
                        .usedMem(4000)
                        .cores(100)
                        .usedCores(50)
                        .build())))
        .isCloseTo(15f, within(1e-4f));
    assertThat(DeviceScores.node(List.of(dev("a").count(10).mem(8000).build()))).isZero();
  }

  @Test
  void placement_V75_pick() {
    NodeDevices node =
        NodeDevices.of(
            "n",
            List.of(dev("uuid1").count(10).used(5).mem(8000).usedMem(4000).usedCores(50).build()));
    Placement p =
        NodePlacer.standard()
            .place(
                node,
                PodRequests.single(
                    new VendorRequest("NVIDIA", 1, 1000, VendorRequest.PERCENT_UNSET, 30)),
                PodGpuOptions.DEFAULT,
                null);
    assertThat(p.fits()).isTrue();
    assertThat(p.containers().get(0)).containsExactly(new DevicePick("uuid1", "NVIDIA", 1000, 30));
  }

  record Less(
      String name,
      String policy,
      boolean numaBind,
      DeviceUsage a,
      float sa,
      DeviceUsage b,
      float sb,
      boolean want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Less> lessCases() {
    return Stream.of(
        new Less(
            "binpack lower score first",
            "binpack",
            false,
            dev("a").numa(1).build(),
            10,
            dev("b").numa(0).build(),
            20,
            true),
        new Less(
            "binpack tie numa asc",
            "binpack",
            false,
            dev("a").numa(0).build(),
            15,
            dev("b").numa(1).build(),
            15,
            true),
        new Less("spread", "spread", false, dev("a").build(), 10, dev("b").build(), 20, false),
        new Less(
            "binpack numa-bind numa desc",
            "binpack",
            true,
            dev("a").numa(1).build(),
            5,
            dev("b").numa(0).build(),
            99,
            true),
        new Less(
            "spread numa-bind numa asc",
            "spread",
            true,
            dev("a").numa(0).build(),
            5,
            dev("b").numa(1).build(),
            99,
            true),
        new Less(
            "mutex used desc",
            "mutex",
            false,
            dev("a").used(2).build(),
            0,
            dev("b").used(0).build(),
            0,
            true),
        new Less(
            "bare numa index tie-break",
            "numa",
            false,
            dev("a").index(3).build(),
            10,
            dev("b").index(1).build(),
            20,
            false),
        new Less(
            "chain numa,spread",
            "numa,spread",
            false,
            dev("a").numa(1).build(),
            5,
            dev("b").numa(0).build(),
            99,
            false));
  }

  @ParameterizedTest(name = "V77 {0}")
  @MethodSource("lessCases")
  void gpuLess_V77(Less c) {
    assertThat(GpuPolicy.parse(c.policy()).compare(c.a(), c.sa(), c.b(), c.sb(), c.numaBind()) < 0)
        .isEqualTo(c.want());
  }

  @Test
  void nodeLess_V76() {
    // Scores are mapped so that higher framework scores win: binpack favours the busier node.
    assertThat(VgpuScoring.nodeScore(20f, NodePolicy.SPREAD))
        .isLessThan(VgpuScoring.nodeScore(10f, NodePolicy.SPREAD));
    assertThat(VgpuScoring.nodeScore(20f, NodePolicy.BINPACK))
        .isGreaterThan(VgpuScoring.nodeScore(10f, NodePolicy.BINPACK));
  }

  static ScoringWeights parse(String v) {
    return ScoringWeights.parse(v);
  }

  @Test
  void weights_V79() {
    assertThat(parse("slot=1,core=2,memory=3")).isEqualTo(new ScoringWeights(1, 2, 3));
    assertThat(parse(" memory = 3, slot = 1, core = 0 ")).isEqualTo(new ScoringWeights(1, 0, 3));
    assertThatThrownBy(() -> parse(""))
        .hasMessageContaining("expected slot, core, and memory weights");
    assertThatThrownBy(() -> parse("slot=1,core=1,memory=1,"))
        .hasMessageContaining("expected slot, core, and memory weights");
    assertThatThrownBy(() -> parse("slot=1,memory=3"))
        .hasMessageContaining("expected slot, core, and memory weights");
    assertThatThrownBy(() -> parse("slot=1,core,memory=3"))
        .hasMessageContaining("expected key=value entries");
    assertThatThrownBy(() -> parse("slot=1,core=high,memory=3"))
        .hasMessageContaining("\"core\" weight must be an integer");
    assertThatThrownBy(() -> parse("core=-1,slot=1,memory=1"))
        .hasMessageContaining("must not be negative");
    assertThatThrownBy(() -> parse("slot=1,bandwidth=2,memory=3"))
        .hasMessageContaining("unknown weight \"bandwidth\"");
    assertThatThrownBy(() -> parse("slot=1,slot=2,memory=3"))
        .hasMessageContaining("duplicate \"slot\" weight");
    assertThatThrownBy(() -> parse("slot=0,core=0,memory=0"))
        .hasMessageContaining("at least one weight must be positive");
  }

  static DevicePick g0(int mem, int cores) {
    return new DevicePick("gpu0", "NVIDIA", mem, cores);
  }

  record Collapse(String name, List<List<DevicePick>> ctrs, int init, PodUsage.Usage want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Collapse> collapseCases() {
    return Stream.of(
        new Collapse(
            "two app",
            List.of(List.of(g0(100, 10)), List.of(g0(200, 20))),
            0,
            new PodUsage.Usage(2, 300, 30, "NVIDIA")),
        new Collapse(
            "two init",
            List.of(List.of(g0(100, 10)), List.of(g0(200, 30))),
            2,
            new PodUsage.Usage(1, 200, 30, "NVIDIA")),
        new Collapse(
            "init larger than app",
            List.of(List.of(g0(500, 50)), List.of(g0(100, 10))),
            1,
            new PodUsage.Usage(1, 500, 50, "NVIDIA")),
        new Collapse(
            "apps larger than init",
            List.of(List.of(g0(100, 10)), List.of(g0(200, 20)), List.of(g0(300, 30))),
            1,
            new PodUsage.Usage(2, 500, 50, "NVIDIA")),
        new Collapse(
            "three init",
            List.of(
                List.of(g0(100, 10)),
                List.of(g0(300, 30)),
                List.of(g0(200, 20)),
                List.of(g0(50, 5))),
            3,
            new PodUsage.Usage(1, 300, 30, "NVIDIA")));
  }

  @ParameterizedTest(name = "V80 {0}")
  @MethodSource("collapseCases")
  void collapse_V80(Collapse c) {
    assertThat(PodUsage.collapse(c.ctrs(), c.init(), false).byDevice())
        .containsEntry("gpu0", c.want());
  }

  @Test
  void collapse_appOnlyOnceInitContainersSucceeded() {
    PodUsage u = PodUsage.collapse(List.of(List.of(g0(500, 50)), List.of(g0(100, 10))), 1, true);
    assertThat(u.byDevice()).containsEntry("gpu0", new PodUsage.Usage(1, 100, 10, "NVIDIA"));
  }
}
