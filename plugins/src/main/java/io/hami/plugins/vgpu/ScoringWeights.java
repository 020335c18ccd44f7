package io.hami.plugins.vgpu;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.HashMap;
import java.util.Map;

/**
 * Weights of the three terms of the device score ({@code hami.io/device-scoring-weights}: {@code
 * slot=<int>,core=<int>,memory=<int>}).
 */
public record ScoringWeights(int slot, int core, int memory) {

  public static final ScoringWeights DEFAULT = new ScoringWeights(1, 1, 1);

  public ScoringWeights {
    checkArgument(slot >= 0 && core >= 0 && memory >= 0, "weights must not be negative");
    checkArgument(slot + core + memory > 0, "at least one weight must be positive");
  }

  /**
   * Parses the annotation value: exactly the three keys in any order, integers at least 0, not all
   * 0.
   *
   * @throws IllegalArgumentException with a message naming the offending entry
   */
  public static ScoringWeights parse(String value) {
    Map<String, Integer> seen = new HashMap<>();
    if (!value.isBlank()) {
      for (String entry : value.split(",", -1)) {
        int eq = entry.indexOf('=');
        if (eq < 0) {
          throw new IllegalArgumentException("expected key=value entries, got \"" + entry.trim() + "\"");
        }
        String key = entry.substring(0, eq).trim();
        String raw = entry.substring(eq + 1).trim();
        if (!key.equals("slot") && !key.equals("core") && !key.equals("memory")) {
          throw new IllegalArgumentException("unknown weight \"" + key + "\"");
        }
        int w;
        try {
          w = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("\"" + key + "\" weight must be an integer, got \"" + raw + "\"");
        }
        if (w < 0) {
          throw new IllegalArgumentException("\"" + key + "\" weight must not be negative, got " + w);
        }
        if (seen.put(key, w) != null) {
          throw new IllegalArgumentException("duplicate \"" + key + "\" weight");
        }
      }
    }
    if (seen.size() != 3) {
      throw new IllegalArgumentException(
          "expected slot, core, and memory weights, got \"" + value + "\"");
    }
    int slot = seen.get("slot");
    int core = seen.get("core");
    int memory = seen.get("memory");
    if (slot + core + memory == 0) {
      throw new IllegalArgumentException("at least one weight must be positive");
    }
    return new ScoringWeights(slot, core, memory);
  }
}
