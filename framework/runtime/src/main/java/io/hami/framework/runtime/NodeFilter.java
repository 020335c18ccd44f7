package io.hami.framework.runtime;

import io.hami.framework.api.Code;
import io.hami.framework.api.ExcludedNodes;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.Status;
import io.hami.framework.queue.Nominator;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Runs Filter over a pod's candidate nodes until enough feasible ones are found, starting where the
 * previous cycle stopped so that every node gets its turn.
 *
 * <p>Concurrency: used by the scheduling thread only, which owns the scratch arrays and the start
 * index. Fanned-out Filter calls write disjoint slots of the status array.
 */
final class NodeFilter {
  static final int MIN_FEASIBLE_NODES_TO_FIND = 100;
  private static final int MIN_FEASIBLE_NODES_PERCENTAGE = 5;

  /**
   * Marks, while the search runs, a candidate a PreFilter plugin excluded; replaced by the Filter
   * plugins' own verdict when the pod's message needs it.
   */
  private static final Status EXCLUDED = Status.unschedulable("excluded by PreFilter");

  private final Parallelizer parallelizer;
  private final Nominator nominator;
  private int nextStartNodeIndex;
  private Status[] statusScratch = new Status[0];
  private int[] feasibleScratch = new int[0];

  NodeFilter(Parallelizer parallelizer, Nominator nominator) {
    this.parallelizer = parallelizer;
    this.nominator = nominator;
  }

  /**
   * What Filter found. Its arrays are the filter's scratch: valid until {@link #clear}, and only
   * the first {@link #total} statuses and {@link #found} feasible positions mean anything.
   */
  static final class Result {
    final List<NodeInfo> candidates;
    final int total;

    /** Per candidate position, the rejecting status; null where the node passed or was not run. */
    final @Nullable Status[] statuses;

    /** Positions of the feasible candidates, in order from the start index. */
    final int[] feasible;

    final long @Nullable [] pluginNanos;
    final long startNanos;
    int found;
    int processed;
    @Nullable Status error;

    /**
     * Where an in-order search started, so that {@link #clear} drops the statuses of the {@link
     * #processed} positions from there only; -1 after a parallel search, which may leave statuses
     * anywhere.
     */
    int inOrderStart = -1;

    private Result(
        List<NodeInfo> candidates,
        @Nullable Status[] statuses,
        int[] feasible,
        long @Nullable [] pluginNanos,
        long startNanos) {
      this.candidates = candidates;
      this.total = candidates.size();
      this.statuses = statuses;
      this.feasible = feasible;
      this.pluginNanos = pluginNanos;
      this.startNanos = startNanos;
    }
  }

  /**
   * Filters {@code candidates} for the cycle's pod.
   *
   * @param skip Filter plugins PreFilter told to skip
   * @param excluded candidates (by position) PreFilter found that Filter certainly rejects: they
   *     count as processed and rejected without running Filter, so the search visits and finds
   *     exactly the nodes it would without them; null for none
   * @param rotate whether the candidates are the snapshot's whole node list: only then does the
   *     start rotate and are kept verdicts reused (they are kept by position in that list)
   */
  Result filter(
      PodCycle c,
      boolean[] skip,
      List<NodeInfo> candidates,
      @Nullable ExcludedNodes excluded,
      boolean rotate) {
    FrameworkRuntime fwk = c.fwk();
    int total = candidates.size();
    long start = System.nanoTime();
    int numToFind = numFeasibleNodesToFind(fwk.percentageOfNodesToScore(), total);
    int startIdx = rotate && total > 0 ? nextStartNodeIndex % total : 0;
    if (statusScratch.length < total) {
      statusScratch = new Status[total];
    }
    if (feasibleScratch.length < numToFind) {
      feasibleScratch = new int[numToFind];
    }
    long[] pluginNanos = c.sample() ? new long[fwk.filterPluginCount()] : null;
    FilterVerdicts.PodClass podClass =
        rotate ? fwk.filterClass(c.state(), c.pod(), skip, total) : null;
    FilterInput in =
        new FilterInput(
            c.state(),
            c.pod(),
            skip,
            pluginNanos,
            podClass,
            nominator.isEmpty() ? null : nominator);
    Result r = new Result(candidates, statusScratch, feasibleScratch, pluginNanos, start);
    if (!fwk.hasFilterPlugins()) {
      r.found = Math.min(numToFind, total);
      for (int i = 0; i < r.found; i++) {
        r.feasible[i] = (startIdx + i) % total;
      }
      r.processed = r.found;
    } else if (parallelizer.parallelism() == 1 || total < 2 * MIN_FEASIBLE_NODES_TO_FIND) {
      filterInOrder(fwk, in, r, excluded, startIdx, numToFind);
      r.inOrderStart = startIdx;
    } else {
      filterInParallel(fwk, in, r, excluded, startIdx, numToFind);
    }
    if (excluded != null && r.found == 0 && r.error == null) {
      explainExcluded(fwk, in, r);
    }
    if (rotate && total > 0) {
      nextStartNodeIndex = (startIdx + r.processed) % total;
    }
    return r;
  }

  /** Drops the statuses {@code r} left in the scratch array, so they are not kept alive. */
  void clear(Result r) {
    if (r.inOrderStart < 0) {
      Arrays.fill(r.statuses, 0, r.total, null);
      return;
    }
    // A search of a large cluster stops after a small share of it: clear that share only.
    int end = r.inOrderStart + r.processed;
    Arrays.fill(r.statuses, r.inOrderStart, Math.min(end, r.total), null);
    if (end > r.total) {
      Arrays.fill(r.statuses, 0, end - r.total, null);
    }
  }

  /**
   * No candidate fits: runs Filter on the excluded ones, so that the pod's message, its diagnosis
   * and PostFilter see each node's own reasons, as without the exclusion. A node that passes after
   * all (an exclusion that was not exact) is taken as feasible.
   */
  private static void explainExcluded(FrameworkRuntime fwk, FilterInput in, Result r) {
    for (int idx = 0; idx < r.total; idx++) {
      if (r.statuses[idx] != EXCLUDED) {
        continue;
      }
      Status s = fwk.runFilter(in, r.candidates.get(idx), idx);
      if (s.isSuccess()) {
        r.statuses[idx] = null;
        if (r.found < r.feasible.length) {
          r.feasible[r.found++] = idx;
        }
      } else {
        r.statuses[idx] = s;
      }
    }
  }

  private static void filterInOrder(
      FrameworkRuntime fwk,
      FilterInput in,
      Result r,
      @Nullable ExcludedNodes excluded,
      int startIdx,
      int numToFind) {
    int total = r.total;
    for (int i = 0; i < total && r.found < numToFind; i++) {
      int idx = (startIdx + i) % total;
      r.processed++;
      if (excluded != null && excluded.excluded(idx)) {
        r.statuses[idx] = EXCLUDED;
        continue;
      }
      Status s = fwk.runFilter(in, r.candidates.get(idx), idx);
      if (s.isSuccess()) {
        r.feasible[r.found++] = idx;
      } else {
        r.statuses[idx] = s;
        if (s.code() == Code.ERROR) {
          r.error = s;
          break;
        }
      }
    }
  }

  private void filterInParallel(
      FrameworkRuntime fwk,
      FilterInput in,
      Result r,
      @Nullable ExcludedNodes excluded,
      int startIdx,
      int numToFind) {
    int total = r.total;
    AtomicInteger foundCounter = new AtomicInteger();
    AtomicInteger processedCounter = new AtomicInteger();
    AtomicReference<Status> error = new AtomicReference<>();
    parallelizer.until(
        total,
        i -> {
          if (foundCounter.get() >= numToFind || error.get() != null) {
            return;
          }
          int idx = (startIdx + i) % total;
          processedCounter.incrementAndGet();
          if (excluded != null && excluded.excluded(idx)) {
            r.statuses[idx] = EXCLUDED;
            return;
          }
          Status s = fwk.runFilter(in, r.candidates.get(idx), idx);
          if (s.isSuccess()) {
            int k = foundCounter.getAndIncrement();
            if (k < numToFind) {
              r.feasible[k] = idx;
            }
          } else {
            r.statuses[idx] = s;
            if (s.code() == Code.ERROR) {
              error.compareAndSet(null, s);
            }
          }
        });
    r.found = Math.min(foundCounter.get(), numToFind);
    r.processed = processedCounter.get();
    r.error = error.get();
    inStartOrder(r, startIdx);
  }

  /**
   * Sorts the feasible positions by their distance from the start index, so that results do not
   * depend on thread timing more than necessary.
   */
  private static void inStartOrder(Result r, int startIdx) {
    int total = r.total;
    Integer[] boxed = new Integer[r.found];
    for (int i = 0; i < r.found; i++) {
      boxed[i] = r.feasible[i];
    }
    Arrays.sort(boxed, Comparator.comparingInt(x -> (x - startIdx + total) % total));
    for (int i = 0; i < r.found; i++) {
      r.feasible[i] = boxed[i];
    }
  }

  /**
   * How many feasible nodes to look for: all when the cluster is small, otherwise the configured
   * percentage (adaptive when 0: 50% minus 1% per 125 nodes, at least 5%), never fewer than 100.
   */
  static int numFeasibleNodesToFind(int percentage, int numAll) {
    if (numAll < MIN_FEASIBLE_NODES_TO_FIND || percentage >= 100) {
      return numAll;
    }
    int p = percentage;
    if (p == 0) {
      p = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE, 50 - numAll / 125);
    }
    int num = (int) ((long) numAll * p / 100);
    return Math.max(num, MIN_FEASIBLE_NODES_TO_FIND);
  }
}
