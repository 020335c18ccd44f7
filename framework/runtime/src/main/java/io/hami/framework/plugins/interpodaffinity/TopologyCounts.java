package io.hami.framework.plugins.interpodaffinity;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Counts (or scores) per topology pair {@code (topologyKey, value)}, kept by key and then value so
 * that a node is looked up with its labels and no allocation. Pairs whose count drops to zero are
 * removed, so {@link #isEmpty()} means "no pair counted". Not thread-safe: written on the
 * scheduling thread (PreFilter, PreScore, AddPod/RemovePod on a copy), read concurrently after.
 */
final class TopologyCounts {
  private final HashMap<String, HashMap<String, Long>> byKey;

  TopologyCounts() {
    this.byKey = new HashMap<>();
  }

  private TopologyCounts(HashMap<String, HashMap<String, Long>> byKey) {
    this.byKey = byKey;
  }

  /** Adds {@code delta} to the pair; a pair that reaches zero is removed. */
  void add(String key, String value, long delta) {
    if (delta == 0) {
      return;
    }
    HashMap<String, Long> values = byKey.computeIfAbsent(key, k -> new HashMap<>());
    long n = values.getOrDefault(value, 0L) + delta;
    if (n == 0) {
      values.remove(value);
      if (values.isEmpty()) {
        byKey.remove(key);
      }
    } else {
      values.put(value, n);
    }
  }

  /**
   * Adds {@code delta} to the pair of {@code key} on a node with {@code nodeLabels}, if it has it.
   */
  void addForNode(String key, Map<String, String> nodeLabels, long delta) {
    String v = nodeLabels.get(key);
    if (v != null) {
      add(key, v, delta);
    }
  }

  long get(String key, @Nullable String value) {
    if (value == null) {
      return 0;
    }
    HashMap<String, Long> values = byKey.get(key);
    if (values == null) {
      return 0;
    }
    Long n = values.get(value);
    return n == null ? 0 : n;
  }

  /** Whether a node with these labels is in a pair with a positive count. */
  boolean anyPositive(Map<String, String> nodeLabels) {
    for (Map.Entry<String, HashMap<String, Long>> e : byKey.entrySet()) {
      String v = nodeLabels.get(e.getKey());
      if (v != null) {
        Long n = e.getValue().get(v);
        if (n != null && n > 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** The sum over every key of the count of the node's pair for it. */
  long sumFor(Map<String, String> nodeLabels) {
    long sum = 0;
    for (Map.Entry<String, HashMap<String, Long>> e : byKey.entrySet()) {
      String v = nodeLabels.get(e.getKey());
      if (v != null) {
        Long n = e.getValue().get(v);
        if (n != null) {
          sum += n;
        }
      }
    }
    return sum;
  }

  /** Adds every pair of {@code other} into this. */
  void addAll(TopologyCounts other) {
    other.byKey.forEach((k, values) -> values.forEach((v, n) -> add(k, v, n)));
  }

  boolean isEmpty() {
    return byKey.isEmpty();
  }

  TopologyCounts copy() {
    HashMap<String, HashMap<String, Long>> c = new HashMap<>(byKey.size() * 2 + 1);
    byKey.forEach((k, v) -> c.put(k, new HashMap<>(v)));
    return new TopologyCounts(c);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof TopologyCounts t && byKey.equals(t.byKey);
  }

  @Override
  public int hashCode() {
    return byKey.hashCode();
  }

  @Override
  public String toString() {
    return byKey.toString();
  }
}
