package io.hami.plugins.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.plugins.fgd.TargetWorkload;
import io.hami.plugins.fgd.TaskShape;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class PaperPolicyTest {

  private static final TargetWorkload WORKLOAD =
      TargetWorkload.of(List.of(new TaskShape(1000, 500, 1, 0)), new long[] {1});

  /** A one-node table with the given CPU and GPUs, after taking {@code used[g]} from GPU g. */
  private static NodeTable node(long cpu, int[] used) {
    NodeTable t =
        new NodeTable(
            WORKLOAD,
            new long[] {cpu},
            new long[] {1 << 20},
            new long[] {1},
            new int[] {used.length});
    for (int g = 0; g < used.length; g++) {
      if (used[g] > 0) {
        t.place(0, new Task(0, 0, used[g], 1, 0, 0), 1 << g);
      }
    }
    return t;
  }

  private static Task task(int cpu, int milli, int count) {
    return new Task(cpu, 0, milli, count, 0, 0);
  }

  record Case(
      String name, PaperPolicy policy, NodeTable table, Task task, int wantScore, int wantMask) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "dotprod: trunc(100·(1 − dp))",
            PaperPolicy.DOT_PRODUCT,
            node(64_000, new int[] {0, 0}),
            task(8000, 500, 1),
            97,
            0b01),
        new Case(
            "bestfit: least leftover",
            PaperPolicy.BEST_FIT,
            node(64_000, new int[] {0, 0}),
            task(8000, 500, 1),
            68,
            0b01),
        new Case(
            "bestfit GPU choice: smallest free that fits",
            PaperPolicy.BEST_FIT,
            node(64_000, new int[] {300, 500, 100}),
            task(1000, 400, 1),
            64,
            0b010),
        new Case(
            "packing: empty 1-GPU node",
            PaperPolicy.PACKING,
            node(8000, new int[] {0}),
            task(1000, 500, 1),
            32,
            0b1),
        new Case(
            "packing: empty 2-GPU node",
            PaperPolicy.PACKING,
            node(8000, new int[] {0, 0}),
            task(1000, 500, 1),
            31,
            0b01),
        new Case(
            "packing: empty 8-GPU node",
            PaperPolicy.PACKING,
            node(8000, new int[8]),
            task(1000, 500, 1),
            25,
            0b1),
        new Case(
            "packing: shared GPU used, prefers the fullest",
            PaperPolicy.PACKING,
            node(8000, new int[] {400, 0}),
            task(1000, 500, 1),
            94,
            0b01),
        new Case(
            "packing: fully free GPU on a used node",
            PaperPolicy.PACKING,
            node(8000, new int[] {400, 0}),
            task(1000, 1000, 1),
            49,
            0b10),
        new Case(
            "packing: cpu-only task scores 0",
            PaperPolicy.PACKING,
            node(8000, new int[] {400, 0}),
            task(1000, 0, 0),
            0,
            0),
        new Case(
            "clustering: node without GPU pods",
            PaperPolicy.CLUSTERING,
            node(8000, new int[] {0, 0}),
            task(1000, 500, 1),
            18 + 25,
            0b01),
        new Case(
            "clustering: node holding only sharing pods",
            PaperPolicy.CLUSTERING,
            node(8000, new int[] {500, 0}),
            task(1000, 500, 1),
            20 + 75,
            0b01),
        new Case(
            "clustering: whole-GPU task on a sharing node",
            PaperPolicy.CLUSTERING,
            node(8000, new int[] {500, 0}),
            task(1000, 1000, 1),
            20,
            0b10),
        new Case(
            "clustering: cpu-only task scores 0",
            PaperPolicy.CLUSTERING,
            node(8000, new int[] {500, 0}),
            task(1000, 0, 0),
            0,
            0),
        new Case(
            "fgd: no fragment change scores 50",
            PaperPolicy.FGD,
            node(64_000, new int[] {0, 0}),
            task(1000, 500, 1),
            50,
            0b01),
        new Case(
            "random: scores 0, best-fit GPUs for whole tasks",
            PaperPolicy.RANDOM,
            node(64_000, new int[] {500, 0, 0}),
            task(1000, 1000, 2),
            0,
            0b110));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void evaluate(Case c) {
    long e = c.policy().evaluate(c.table(), 0, c.task(), new int[NodeTable.STRIDE]);
    assertThat(PlacementPolicy.score(e)).as("score").isEqualTo(c.wantScore());
    assertThat(PlacementPolicy.gpuMask(e)).as("GPUs").isEqualTo(c.wantMask());
  }

  @Test
  void clustering_nodeHoldingThisTagAmongOthers() {
    NodeTable t = node(8000, new int[] {500, 0, 0});
    t.place(0, task(0, 1000, 1), 0b010);
    long e = PaperPolicy.CLUSTERING.evaluate(t, 0, task(1000, 500, 1), new int[8]);
    // gpuLeft = 3000 − 1500 = 1500 → b = 25·6500/8000 = 20; holds share and 1-gpu → +50.
    assertThat(PlacementPolicy.score(e)).isEqualTo(70);
  }

  @Test
  void randomGpu_drawsAmongFittingGpusOnly() {
    NodeTable t = node(8000, new int[] {800, 0, 600, 0});
    Task share = task(100, 300, 1);
    assertThat(PaperPolicy.randomGpu(t, 0, share, n -> 0)).isEqualTo(0b0010);
    assertThat(PaperPolicy.randomGpu(t, 0, share, n -> n - 1)).isEqualTo(0b1000);
  }

  @Test
  void byName_isCaseInsensitive() {
    assertThat(PaperPolicy.byName(" FGD ")).contains(PaperPolicy.FGD);
    assertThat(PaperPolicy.byName("bestfit")).contains(PaperPolicy.BEST_FIT);
    assertThat(PaperPolicy.byName("first-fit")).isEmpty();
  }
}
