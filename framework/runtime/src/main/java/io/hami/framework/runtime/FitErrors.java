package io.hami.framework.runtime;

import io.hami.framework.api.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** The words of a failed attempt: the condition message and the plugins to blame. */
final class FitErrors {
  private FitErrors() {}

  /** The plugins named by {@code s} (a comma-separated list when several rejected). */
  static Set<String> plugins(Status s) {
    return s.plugin() == null ? Set.of() : Set.of(s.plugin().split(","));
  }

  /** The plugins behind the first {@code count} Filter statuses. */
  // Identity on purpose: plugins reuse one Status object across nodes (see message).
  @SuppressWarnings("ReferenceEquality")
  static Set<String> rejectors(@Nullable Status[] statuses, int count) {
    Set<String> rejectors = new HashSet<>();
    Status last = null;
    for (int i = 0; i < count; i++) {
      Status s = statuses[i];
      // Plugins reuse one rejection across nodes; skip the repeats cheaply.
      if (s != null && s != last && s.plugin() != null) {
        rejectors.add(s.plugin());
        last = s;
      }
    }
    return rejectors;
  }

  /**
   * The PodScheduled message: {@code 0/N nodes are available: 4000 Reason A, 1000 Reason B.},
   * counts in descending order, then by reason.
   */
  // Identity on purpose: comparing references counts a reused Status without equals per node.
  @SuppressWarnings("ReferenceEquality")
  static String message(
      int numAll, @Nullable Status[] statuses, int count, int excludedByPreFilter) {
    // Count each distinct status object first: plugins reuse one rejection across many nodes.
    IdentityHashMap<Status, int[]> byStatus = new IdentityHashMap<>();
    Status last = null;
    int[] lastCount = new int[1];
    for (int i = 0; i < count; i++) {
      Status s = statuses[i];
      if (s == null) {
        continue;
      }
      if (s != last) {
        last = s;
        lastCount = byStatus.computeIfAbsent(s, k -> new int[1]);
      }
      lastCount[0]++;
    }
    Map<String, Integer> histogram = new HashMap<>();
    for (Map.Entry<Status, int[]> e : byStatus.entrySet()) {
      for (String r : e.getKey().reasons()) {
        histogram.merge(r, e.getValue()[0], Integer::sum);
      }
    }
    if (excludedByPreFilter > 0) {
      histogram.merge(AttemptRecords.PREFILTER_EXCLUDED, excludedByPreFilter, Integer::sum);
    }
    return format(numAll, histogram);
  }

  private static String format(int numAll, Map<String, Integer> histogram) {
    List<Map.Entry<String, Integer>> entries = new ArrayList<>(histogram.entrySet());
    entries.sort(
        Map.Entry.<String, Integer>comparingByValue()
            .reversed()
            .thenComparing(Map.Entry.comparingByKey()));
    StringBuilder sb = new StringBuilder("0/").append(numAll).append(" nodes are available");
    for (int i = 0; i < entries.size(); i++) {
      sb.append(i == 0 ? ": " : ", ")
          .append(entries.get(i).getValue())
          .append(' ')
          .append(entries.get(i).getKey());
    }
    return sb.append('.').toString();
  }
}
