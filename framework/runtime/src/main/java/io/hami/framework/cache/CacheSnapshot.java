package io.hami.framework.cache;

import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot that {@link SchedulerCache#updateSnapshot} refreshes in place between cycles,
 * replacing only the NodeInfos whose generation moved. Owned by the scheduling thread: plugins read
 * it during a cycle, and it changes only when the next cycle starts.
 */
public final class CacheSnapshot implements Snapshot {
  final List<NodeInfo> nodes = new ArrayList<>();
  final Map<String, Integer> index = new HashMap<>();
  private final List<NodeInfo> view = Collections.unmodifiableList(nodes);
  long generation = -1;
  long membershipVersion = -1;
  int lastUpdateCopied;
  int @Nullable [] nameRanks;

  @Override
  public List<NodeInfo> nodes() {
    return view;
  }

  @Override
  public @Nullable NodeInfo get(String nodeName) {
    Integer i = index.get(nodeName);
    return i == null ? null : nodes.get(i);
  }

  @Override
  public int size() {
    return nodes.size();
  }

  /**
   * Each position's rank in name order ({@code nameRanks()[i] < nameRanks()[j]} when node i's name
   * sorts first), made once per change of the node set.
   */
  public int[] nameRanks() {
    int[] r = nameRanks;
    if (r == null || r.length != nodes.size()) {
      Integer[] order = new Integer[nodes.size()];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(order, Comparator.comparing(i -> nodes.get(i).name()));
      r = new int[order.length];
      for (int k = 0; k < order.length; k++) {
        r[order[k]] = k;
      }
      nameRanks = r;
    }
    return r;
  }

  /** The highest node generation this snapshot reflects. */
  public long generation() {
    return generation;
  }

  /** How many NodeInfos the last update replaced (for tests and diagnostics). */
  public int lastUpdateCopied() {
    return lastUpdateCopied;
  }
}
