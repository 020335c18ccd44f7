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

  /** How many replaced positions the log keeps before it drops its older half. */
  static final int LOG_CAPACITY = 1 << 14;

  // The positions replaced by each update, with the generation the update brought the snapshot
  // to, in update order; complete for every generation at or after logFrom.
  private int[] logPositions = new int[64];
  private long[] logGenerations = new long[64];
  private int logSize;
  private long logFrom = Long.MAX_VALUE;
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
  @Override
  public long generation() {
    return generation;
  }

  @Override
  public int @Nullable [] replacedSince(long since) {
    if (since < logFrom || since > generation) {
      return null;
    }
    // The first entry past `since`: generations grow along the log.
    int lo = 0;
    int hi = logSize;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (logGenerations[mid] <= since) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return Arrays.copyOfRange(logPositions, lo, logSize);
  }

  /** Records that the update to {@code newGeneration} replaced the NodeInfo at {@code position}. */
  void logReplaced(int position, long newGeneration) {
    if (logSize == LOG_CAPACITY) {
      int half = LOG_CAPACITY / 2;
      logFrom = Math.max(logFrom, logGenerations[half - 1]);
      System.arraycopy(logPositions, half, logPositions, 0, logSize - half);
      System.arraycopy(logGenerations, half, logGenerations, 0, logSize - half);
      logSize -= half;
    }
    if (logSize == logPositions.length) {
      logPositions = Arrays.copyOf(logPositions, logSize * 2);
      logGenerations = Arrays.copyOf(logGenerations, logSize * 2);
    }
    logPositions[logSize] = position;
    logGenerations[logSize] = newGeneration;
    logSize++;
  }

  /** Forgets every replaced position: the node list was rebuilt at {@code newGeneration}. */
  void resetLog(long newGeneration) {
    logSize = 0;
    logFrom = newGeneration;
  }

  /** How many NodeInfos the last update replaced (for tests and diagnostics). */
  public int lastUpdateCopied() {
    return lastUpdateCopied;
  }
}
