package io.hami.sim;

import io.hami.plugins.placement.NodeTable;
import io.hami.plugins.placement.PaperPolicy;
import io.hami.plugins.placement.PlacementPolicy;
import io.hami.plugins.placement.Task;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * One replay of a prepared trace under one policy and seed, following the FGD paper's protocol: one
 * random stream per run, used in a fixed order to (a) shuffle the name-sorted pods, (b) tune the
 * workload to {@link #TUNE_RATIO} of GPU capacity and (c) permute the nodes (ties go to the node
 * that comes first); (d) Random-fit's draws come from a second stream ({@link #drawSeed}), the one
 * the scheduler's placement plugin is given, so that both engines draw alike. Pods are placed one
 * by one with no departures; a pod that fits nowhere fails for good.
 *
 * <p>Scores are cached per node and task shape and recomputed only when the node changes, so a pod
 * costs one pass of cache reads over the nodes. Not thread-safe; one instance per thread.
 */
public final class Replay {

  /** Workload tuning target as a multiple of GPU capacity. */
  public static final double TUNE_RATIO = 1.3;

  private static final long NO_FIT = Long.MIN_VALUE;

  private final PreparedTrace trace;

  public Replay(PreparedTrace trace) {
    this.trace = trace;
  }

  /**
   * Seed of Random-fit's draws for a run seed: a stream apart from the one that orders pods and
   * nodes, so that the node and GPU draws are independent of the submission order.
   */
  public static long drawSeed(long seed) {
    return new SplittableRandom(seed ^ 0x6A09E667F3BCC909L).nextLong();
  }

  /** Pod indices (name order) in submission order for a seed, after shuffle and tuning. */
  static int[] submissionOrder(PreparedTrace trace, SplittableRandom rng) {
    int n = trace.pods().size();
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    shuffle(order, rng);
    long target = Math.round(TUNE_RATIO * trace.capacity());
    long total = 0;
    for (int i = 0; i < n; i++) {
      total += trace.task(i).totalGpuMilli();
    }
    if (total < target) {
      int[] list = Arrays.copyOf(order, n * 2 + 16);
      int size = n;
      while (true) {
        int pick = rng.nextInt(n);
        Task t = trace.task(pick);
        // The artifact tests the overshoot with the per-GPU share, not k times it.
        if (total + t.gpuMilli() > target) {
          break;
        }
        if (size == list.length) {
          list = Arrays.copyOf(list, size * 2);
        }
        list[size++] = pick;
        total += t.totalGpuMilli();
      }
      return Arrays.copyOf(list, size);
    }
    int size = n;
    while (total > target) {
      int drop = rng.nextInt(size);
      total -= trace.task(order[drop]).totalGpuMilli();
      System.arraycopy(order, drop + 1, order, drop, size - drop - 1);
      size--;
    }
    return Arrays.copyOf(order, size);
  }

  static void shuffle(int[] a, SplittableRandom rng) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  /** Replays the trace under {@code policy} with {@code seed}. */
  public RunResult run(PlacementPolicy policy, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    int[] submitted = submissionOrder(trace, rng);
    int nodes = trace.nodes().size();
    // perm[i] is the tie-break rank of node i (name order); the table holds nodes by rank.
    int[] perm = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      perm[i] = i;
    }
    shuffle(perm, rng);
    int[] byRank = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      byRank[perm[i]] = i;
    }
    NodeTable table = trace.emptyTable(byRank);
    double emptyFragment = table.fragmentMilli();
    boolean random = policy == PaperPolicy.RANDOM;
    SplittableRandom draws = new SplittableRandom(drawSeed(seed));

    int shapes = trace.shapeCount();
    long[] cache = new long[nodes * shapes];
    int[] stamp = new int[nodes * shapes];
    int[] scratch = new int[NodeTable.STRIDE];
    int[] feasible = random ? new int[nodes] : new int[0];

    int pods = submitted.length;
    ReplayRecord record = new ReplayRecord(pods);
    for (int p = 0; p < pods; p++) {
      Task task = trace.task(submitted[p]);
      int shape = task.shapeId();
      long mem = task.memMiB();
      int best = -1;
      long bestEval = 0;
      int bestScore = Integer.MIN_VALUE;
      int feasibleCount = 0;
      for (int n = 0, ci = shape; n < nodes; n++, ci += shapes) {
        if (mem > table.memLeft(n)) {
          continue;
        }
        int v = table.version(n) + 1;
        long e;
        if (stamp[ci] == v) {
          e = cache[ci];
        } else {
          e = table.fitsIgnoringMemory(n, task) ? policy.evaluate(table, n, task, scratch) : NO_FIT;
          cache[ci] = e;
          stamp[ci] = v;
        }
        if (e == NO_FIT) {
          continue;
        }
        if (random) {
          feasible[feasibleCount++] = n;
        } else {
          int s = PlacementPolicy.score(e);
          if (s > bestScore) {
            bestScore = s;
            best = n;
            bestEval = e;
          }
        }
      }
      int mask = 0;
      if (random && feasibleCount > 0) {
        // A lone feasible node takes no draw (the scheduler does not score one node).
        best = feasible[feasibleCount == 1 ? 0 : draws.nextInt(feasibleCount)];
        mask = PaperPolicy.randomGpu(table, best, task, draws::nextInt);
      } else if (best >= 0) {
        mask = PlacementPolicy.gpuMask(bestEval);
      }
      if (best >= 0) {
        table.place(best, task, mask);
        record.placed(p, task.totalGpuMilli(), byRank[best], mask, table.totalFragment());
      } else {
        record.failed(p, task.totalGpuMilli(), table.totalFragment());
      }
    }
    return record.result(trace, policy.policyName(), seed, emptyFragment, submitted);
  }
}
