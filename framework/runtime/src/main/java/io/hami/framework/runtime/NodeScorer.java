package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.Status;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Runs PreScore, Score and NormalizeScore over the feasible nodes and picks the best: the highest
 * weighted sum, or, in a profile with primary scores, the highest by the primary scores in turn
 * (each next one breaking the ties of those before) with the weighted sum breaking their ties. Used
 * by the scheduling thread only; Score calls fan out over the parallelizer.
 */
final class NodeScorer {
  private final Parallelizer parallelizer;
  private final SchedulerMetrics metrics;
  private final @Nullable Random tieBreak;

  // Score arrays kept from pod to pod: a pod scores thousands of nodes in a large cluster, and a
  // fresh set of rows per pod was most of the scheduling thread's garbage. Rows are handed out
  // zeroed and at the exact length, since plugins see them (NodeScores) and lengths count nodes.
  private long[][] longRows = new long[0][];
  private double[][] doubleRows = new double[0][];

  /**
   * @param tieBreak breaks score ties at random when given; otherwise the first node wins
   */
  NodeScorer(Parallelizer parallelizer, SchedulerMetrics metrics, @Nullable Random tieBreak) {
    this.parallelizer = parallelizer;
    this.metrics = metrics;
    this.tieBreak = tieBreak;
  }

  /**
   * Scores {@code feasible} and sets the attempt's node and selection; returns null, or the status
   * of the plugin that failed.
   */
  @Nullable Status prioritizeAndSelect(PodCycle c, List<NodeInfo> feasible, Attempt a) {
    FrameworkRuntime fwk = c.fwk();
    boolean[] skip = new boolean[fwk.scoring().scorePluginCount()];
    Status pre = fwk.scoring().runPreScore(c.state(), c.pod(), feasible, skip);
    if (pre != null) {
      return pre;
    }
    long scoreStart = System.nanoTime();
    int m = feasible.size();
    long[] total = longRow(0, m);
    int[] primary =
        Arrays.stream(fwk.scoring().primaryScoreIndexes()).filter(p -> !skip[p]).toArray();
    double[][] first = new double[primary.length][];
    for (int k = 0; k < primary.length; k++) {
      first[k] = doubleRow(k, m);
    }
    Status error = score(c, feasible, skip, total, primary, first);
    metrics.extensionPoint(
        "Score",
        error != null ? "Error" : "Success",
        fwk.profileName(),
        System.nanoTime() - scoreStart);
    if (error != null) {
      return error;
    }
    NodeOrder order = NodeOrder.by(first, total);
    int best = selectHost(order, total.length);
    a.node = feasible.get(best).name();
    a.selection = AttemptRecords.scored(a.evaluated, feasible, total, order, best);
    return null;
  }

  /**
   * Adds each scoring plugin's weighted, normalized score into {@code total}; fills {@code
   * first[k]} with primary plugin {@code primary[k]}'s score (unrounded when it gives one, else
   * normalized).
   */
  private @Nullable Status score(
      PodCycle c,
      List<NodeInfo> feasible,
      boolean[] skip,
      long[] total,
      int[] primary,
      double[][] first) {
    FrameworkRuntime fwk = c.fwk();
    CycleState state = c.state();
    Pod pod = c.pod();
    int plugins = skip.length;
    int m = feasible.size();
    long[][] raw = new long[plugins][];
    for (int p = 0; p < plugins; p++) {
      raw[p] = skip[p] ? null : longRow(1 + p, m);
    }
    // Per plugin, the primary row its unrounded score goes to; null where none.
    double[][] exact = new double[plugins][];
    double[][] normalized = new double[plugins][];
    for (int k = 0; k < primary.length; k++) {
      if (fwk.scoring().hasExactScore(primary[k])) {
        exact[primary[k]] = first[k];
      } else {
        normalized[primary[k]] = first[k];
      }
    }
    AtomicReference<Status> error = new AtomicReference<>();
    parallelizer.until(
        m,
        i -> {
          NodeInfo node = feasible.get(i);
          for (int p = 0; p < plugins; p++) {
            if (raw[p] == null) {
              continue;
            }
            try {
              raw[p][i] = fwk.scoring().runScore(p, state, pod, node);
              if (exact[p] != null) {
                exact[p][i] = fwk.scoring().runExactScore(p, state, pod, node);
              }
            } catch (RuntimeException e) {
              error.compareAndSet(null, fwk.scoring().scoreError(p, pod, e));
            }
          }
        });
    if (error.get() != null) {
      return error.get();
    }
    for (int p = 0; p < plugins; p++) {
      if (raw[p] == null) {
        continue;
      }
      Status s = fwk.scoring().normalizeAndWeigh(p, state, pod, feasible, raw[p]);
      if (s != null) {
        return s;
      }
      double[] row = normalized[p];
      if (row != null) {
        for (int i = 0; i < m; i++) {
          row[i] = raw[p][i];
        }
      }
      for (int i = 0; i < m; i++) {
        total[i] += raw[p][i];
      }
    }
    return null;
  }

  /** Long scratch row k (0: the totals, 1 + p: plugin p's scores), zeroed, of length m. */
  private long[] longRow(int k, int m) {
    if (longRows.length <= k) {
      longRows = Arrays.copyOf(longRows, k + 1);
    }
    long[] row = longRows[k];
    if (row == null || row.length != m) {
      row = new long[m];
      longRows[k] = row;
    } else {
      Arrays.fill(row, 0);
    }
    return row;
  }

  /** Double scratch row k (primary score k), zeroed, of length m. */
  private double[] doubleRow(int k, int m) {
    if (doubleRows.length <= k) {
      doubleRows = Arrays.copyOf(doubleRows, k + 1);
    }
    double[] row = doubleRows[k];
    if (row == null || row.length != m) {
      row = new double[m];
      doubleRows[k] = row;
    } else {
      Arrays.fill(row, 0);
    }
    return row;
  }

  private int selectHost(NodeOrder order, int m) {
    int best = 0;
    int ties = 1;
    for (int i = 1; i < m; i++) {
      int cmp = order.compare(i, best);
      if (cmp > 0) {
        best = i;
        ties = 1;
      } else if (cmp == 0 && tieBreak != null) {
        ties++;
        if (tieBreak.nextInt(ties) == 0) {
          best = i;
        }
      }
    }
    return best;
  }
}
