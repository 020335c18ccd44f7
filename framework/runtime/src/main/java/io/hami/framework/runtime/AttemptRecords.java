package io.hami.framework.runtime;

import io.hami.framework.api.FailedAttempt.Diagnosis;
import io.hami.framework.api.FailedAttempt.NodeReasons;
import io.hami.framework.api.FailedAttempt.ReasonCount;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.api.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Builds what an attempt leaves for those who explain it: the failure's diagnosis handed to the
 * attempt observers, and the node selection handed to PreBind. Each is one pass over the attempt's
 * arrays, done on the scheduling thread.
 */
final class AttemptRecords {
  /** Rejected nodes kept in a diagnosis, fewest reasons first. */
  static final int CLOSEST = 5;

  static final String PREFILTER_EXCLUDED = "node(s) didn't satisfy plugin(s) PreFilter";

  private AttemptRecords() {}

  /**
   * A Filter failure: per-reason node counts (as in the message) and the closest nodes.
   *
   * @param statuses per candidate position, the rejecting status or null
   * @param nameRanks each candidate's rank in name order, or null to compare the names
   */
  // Identity on purpose: plugins reuse one Status object across nodes, so comparing references
  // counts the repeats without calling equals per node.
  @SuppressWarnings("ReferenceEquality")
  static Diagnosis filterFailure(
      Instant now,
      int numAll,
      @Nullable Status[] statuses,
      List<NodeInfo> candidates,
      int excludedByPreFilter,
      int @Nullable [] nameRanks) {
    int count = candidates.size();
    // Plugins reuse one rejection across nodes: count each distinct status, then its reasons.
    IdentityHashMap<Status, int[]> byStatus = new IdentityHashMap<>();
    Status last = null;
    int[] lastCount = new int[1];
    int[] closest = new int[CLOSEST];
    int kept = 0;
    for (int i = 0; i < count; i++) {
      Status s = statuses[i];
      if (s == null) {
        continue;
      }
      if (s != last) {
        lastCount = byStatus.computeIfAbsent(s, k -> new int[1]);
        last = s;
      }
      lastCount[0]++;
      // Insertion into a small sorted array: count is large, CLOSEST is tiny.
      int pos = kept;
      while (pos > 0 && nearer(statuses, candidates, nameRanks, i, closest[pos - 1])) {
        pos--;
      }
      if (pos < CLOSEST) {
        int end = Math.min(kept, CLOSEST - 1);
        System.arraycopy(closest, pos, closest, pos + 1, end - pos);
        closest[pos] = i;
        kept = Math.min(kept + 1, CLOSEST);
      }
    }
    Map<String, Integer> histogram = new HashMap<>();
    byStatus.forEach(
        (s, n) -> {
          for (String r : s.reasons()) {
            histogram.merge(r, n[0], Integer::sum);
          }
        });
    if (excludedByPreFilter > 0) {
      histogram.merge(PREFILTER_EXCLUDED, excludedByPreFilter, Integer::sum);
    }
    List<NodeReasons> nodes = new ArrayList<>(kept);
    for (int k = 0; k < kept; k++) {
      int i = closest[k];
      nodes.add(new NodeReasons(candidates.get(i).name(), statuses[i].reasons()));
    }
    return new Diagnosis(now, "Unschedulable", null, numAll, sorted(histogram), nodes);
  }

  /** Whether node i comes before node j: fewer reasons, then by name. */
  private static boolean nearer(
      @Nullable Status[] statuses,
      List<NodeInfo> candidates,
      int @Nullable [] nameRanks,
      int i,
      int j) {
    int a = statuses[i].reasons().size();
    int b = statuses[j].reasons().size();
    if (a != b) {
      return a < b;
    }
    return nameRanks != null
        ? nameRanks[i] < nameRanks[j]
        : candidates.get(i).name().compareTo(candidates.get(j).name()) < 0;
  }

  /**
   * A failure without per-node results (PreFilter, Reserve, Permit, binding, errors): the message's
   * reason counted against the nodes it concerns.
   */
  static Diagnosis failure(
      Instant now, String reason, @Nullable String node, int numAll, String why, int nodes) {
    return new Diagnosis(
        now, reason, node, numAll, List.of(new ReasonCount(why, nodes)), List.of());
  }

  private static List<ReasonCount> sorted(Map<String, Integer> histogram) {
    List<ReasonCount> out = new ArrayList<>(histogram.size());
    histogram.forEach((r, n) -> out.add(new ReasonCount(r, n)));
    out.sort(
        Comparator.comparingInt(ReasonCount::nodes).reversed().thenComparing(ReasonCount::reason));
    return out;
  }

  /**
   * The selection after scoring: the chosen node's score and the best {@link NodeSelection#TOP} in
   * the order the choice used, each with its weighted sum.
   */
  static NodeSelection scored(
      int evaluated, List<NodeInfo> feasible, long[] total, NodeOrder order, int best) {
    int m = feasible.size();
    int k = Math.min(NodeSelection.TOP, m);
    int[] top = new int[k];
    int kept = 0;
    for (int i = 0; i < m; i++) {
      int pos = kept;
      // On a tie the chosen node ranks first, so that it is always listed.
      while (pos > 0
          && (order.compare(i, top[pos - 1]) > 0
              || (order.compare(i, top[pos - 1]) == 0 && i == best))) {
        pos--;
      }
      if (pos < k) {
        int end = Math.min(kept, k - 1);
        System.arraycopy(top, pos, top, pos + 1, end - pos);
        top[pos] = i;
        kept = Math.min(kept + 1, k);
      }
    }
    List<NodeSelection.Candidate> candidates = new ArrayList<>(kept);
    for (int j = 0; j < kept; j++) {
      candidates.add(new NodeSelection.Candidate(feasible.get(top[j]).name(), total[top[j]]));
    }
    return new NodeSelection(evaluated, m, total[best], candidates);
  }
}
