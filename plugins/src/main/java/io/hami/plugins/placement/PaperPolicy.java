package io.hami.plugins.placement;

import io.hami.plugins.fgd.Fgd;
import io.hami.plugins.fgd.Fragmentation;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntUnaryOperator;

/**
 * The six policies of the FGD paper's evaluation, scored exactly as its artifact does (integer
 * truncations included, since they decide ties). Per-node maxima: 128 cores and 8 GPUs.
 */
public enum PaperPolicy implements PlacementPolicy {

  /**
   * Random-fit. Scores every node 0; the caller draws one feasible node uniformly, and for a
   * sharing task one GPU uniformly among those that fit ({@link #randomGpu}).
   */
  RANDOM("random", "Random") {
    @Override
    public long evaluate(NodeTable t, int n, Task task, int[] scratch) {
      return PlacementPolicy.evaluation(0, bestFit(t, n, task));
    }
  },

  /** Dot-product of the node's free and the task's request, normalised; the smallest wins. */
  DOT_PRODUCT("dotprod", "DotProd") {
    @Override
    public long evaluate(NodeTable t, int n, Task task, int[] scratch) {
      double nodeCpu = (double) t.cpuLeft[n] / MAX_CPU;
      double nodeGpu = (double) t.gpuLeft[n] / MAX_GPU;
      double taskCpu = (double) task.cpuMilli() / MAX_CPU;
      double taskGpu = (double) task.totalGpuMilli() / MAX_GPU;
      double dp = (nodeCpu * taskCpu + nodeGpu * taskGpu) / 2;
      return PlacementPolicy.evaluation((int) (100 * (1 - dp)), bestFit(t, n, task));
    }
  },

  /** GPU clustering: keep sharing tasks and k-GPU tasks on nodes already holding their kind. */
  CLUSTERING("clustering", "Clustering") {
    @Override
    public long evaluate(NodeTable t, int n, Task task, int[] scratch) {
      int tag = task.clusterTag();
      if (tag == 0) {
        return 0;
      }
      int base = 25 * (MAX_GPU - t.gpuLeft[n]) / MAX_GPU;
      int held = t.tags[n];
      int score;
      if (held == tag) {
        score = base + 75;
      } else if ((held & tag) != 0) {
        score = base + 50;
      } else if (held == 0) {
        score = base + 25;
      } else {
        score = base;
      }
      return PlacementPolicy.evaluation(score, bestFit(t, n, task));
    }
  },

  /** GPU packing: fill partly used GPUs first, then partly used nodes, then small empty nodes. */
  PACKING("packing", "Packing") {
    @Override
    public long evaluate(NodeTable t, int n, Task task, int[] scratch) {
      if (task.gpuCount() == 0) {
        return 0;
      }
      int gpus = t.gpus[n];
      int mask = bestFit(t, n, task);
      if (t.gpuLeft[n] == gpus * Fragmentation.FULL) {
        return PlacementPolicy.evaluation(Math.max(33 - gpus, gpus), mask);
      }
      // Ascending free share, keeping those that fit until k are kept: the best-fit choice.
      int base = n * NodeTable.STRIDE;
      int fullyFree = 0;
      int sharedSum = 0;
      for (int g = 0; g < gpus; g++) {
        if ((mask & (1 << g)) != 0) {
          int r = t.free[base + g];
          if (r == Fragmentation.FULL) {
            fullyFree++;
          }
          sharedSum += r * 100 / Fragmentation.FULL;
        }
      }
      int score = fullyFree > 0 ? Math.max(50 - fullyFree, 33) : Math.max(100 - sharedSum / 10, 50);
      return PlacementPolicy.evaluation(score, mask);
    }
  },

  /** Best-fit: the least CPU and GPU left over after placement wins. */
  BEST_FIT("bestfit", "BestFit") {
    @Override
    public long evaluate(NodeTable t, int n, Task task, int[] scratch) {
      double cpuLeftover = (double) (t.cpuLeft[n] - task.cpuMilli()) / MAX_CPU;
      double gpuLeftover = (double) (t.gpuLeft[n] - task.totalGpuMilli()) / MAX_GPU;
      int score = (int) (100 * (1 - (0.5 * cpuLeftover + 0.5 * gpuLeftover)));
      return PlacementPolicy.evaluation(score, bestFit(t, n, task));
    }
  },

  /** Fragmentation gradient descent against the table's target workload. */
  FGD("fgd", "FGD") {
    @Override
    public long evaluate(NodeTable t, int n, Task task, int[] scratch) {
      return Fgd.evaluate(
          t.workload(),
          t.fragment[n],
          t.model[n],
          t.cpuLeft[n],
          t.free,
          n * NodeTable.STRIDE,
          t.gpus[n],
          task.cpuMilli(),
          task.gpuMilli(),
          task.gpuCount(),
          scratch);
    }
  };

  /** Per-node CPU maximum the artifact normalises by, in millicores. */
  public static final int MAX_CPU = 128_000;

  /** Per-node GPU maximum the artifact normalises by, in milli-GPU. */
  public static final int MAX_GPU = 8_000;

  private final String policyName;
  private final String paperName;

  PaperPolicy(String policyName, String paperName) {
    this.policyName = policyName;
    this.paperName = paperName;
  }

  @Override
  public String policyName() {
    return policyName;
  }

  /** The policy's label in the paper's tables. */
  public String paperName() {
    return paperName;
  }

  /** The policy named {@code name} (case-insensitive), if any. */
  public static Optional<PaperPolicy> byName(String name) {
    String key = name.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(p -> p.policyName.equals(key)).findFirst();
  }

  /**
   * For a sharing task, draws one GPU uniformly among those that fit; other tasks take the best-fit
   * GPUs.
   *
   * @param draw a uniform draw in [0, number of fitting GPUs)
   */
  public static int randomGpu(NodeTable t, int n, Task task, IntUnaryOperator draw) {
    if (!task.isSharing()) {
      return bestFit(t, n, task);
    }
    int base = n * NodeTable.STRIDE;
    int fit = 0;
    for (int g = 0; g < t.gpus[n]; g++) {
      if (t.free[base + g] >= task.gpuMilli()) {
        fit++;
      }
    }
    int pick = draw.applyAsInt(fit);
    for (int g = 0; g < t.gpus[n]; g++) {
      if (t.free[base + g] >= task.gpuMilli() && pick-- == 0) {
        return 1 << g;
      }
    }
    throw new IllegalStateException("draw " + pick + " out of " + fit + " fitting GPUs");
  }

  private static int bestFit(NodeTable t, int n, Task task) {
    return task.gpuCount() == 0 ? 0 : t.bestFitGpus(n, task.gpuMilli(), task.gpuCount());
  }
}
