package io.hami.framework.plugins.interpodaffinity;

import java.util.Arrays;
import java.util.Map;

/**
 * Sums per topology key for one node, drained into {@link TopologyCounts} once per node. A node
 * sees few distinct keys, so a linear search beats hashing each contribution. Not thread-safe.
 */
final class KeyTally {
  private String[] keys = new String[4];
  private long[] sums = new long[4];
  private int size;

  void add(String key, long delta) {
    for (int i = 0; i < size; i++) {
      if (keys[i].equals(key)) {
        sums[i] += delta;
        return;
      }
    }
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      sums = Arrays.copyOf(sums, size * 2);
    }
    keys[size] = key;
    sums[size] = delta;
    size++;
  }

  /** Adds each sum to the node's pair of its key (when the node has that label), then clears. */
  void drainInto(TopologyCounts counts, Map<String, String> nodeLabels) {
    for (int i = 0; i < size; i++) {
      counts.addForNode(keys[i], nodeLabels, sums[i]);
      keys[i] = null;
    }
    size = 0;
  }
}
