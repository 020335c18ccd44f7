package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableMap;
import java.util.Map;

/**
 * Topology pair scores between a node's GPUs ({@code hami.io/node-nvidia-score}); higher means a
 * better link (NVLink 100 per link, one PCIe switch 50, cross-CPU 10).
 */
@FunctionalInterface
public interface PairScores {

  /** No topology published: every pair scores 0. */
  PairScores NONE = (a, b) -> 0;

  /** Score of the link between devices {@code a} and {@code b}, 0 when unknown. */
  int score(String a, String b);

  /** Pair scores from a map of device UUID to (other UUID to score); either direction counts. */
  static PairScores of(Map<String, ? extends Map<String, Integer>> byUuid) {
    if (byUuid.isEmpty()) {
      return NONE;
    }
    ImmutableMap.Builder<String, ImmutableMap<String, Integer>> b = ImmutableMap.builder();
    byUuid.forEach((k, v) -> b.put(k, ImmutableMap.copyOf(v)));
    ImmutableMap<String, ImmutableMap<String, Integer>> m = b.buildKeepingLast();
    return (a, c) -> {
      Map<String, Integer> fromA = m.get(a);
      Integer s = fromA == null ? null : fromA.get(c);
      if (s == null) {
        Map<String, Integer> fromC = m.get(c);
        s = fromC == null ? null : fromC.get(a);
      }
      return s == null ? 0 : s;
    };
  }
}
