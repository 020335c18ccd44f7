package io.hami.plugins.vgpu;

import static com.google.common.base.Preconditions.checkArgument;


/**
 * Weights of the three terms of the device score, as read from {@code
 * hami.io/device-scoring-weights} by the protocol model.
 */
public record ScoringWeights(int slot, int core, int memory) {

  public static final ScoringWeights DEFAULT = new ScoringWeights(1, 1, 1);

  public ScoringWeights {
    checkArgument(slot >= 0 && core >= 0 && memory >= 0, "weights must not be negative");
    checkArgument(slot + core + memory > 0, "at least one weight must be positive");
  }

  /**
   * Parses {@code hami.io/device-scoring-weights}: exactly the three keys in any order, integers
   * at least 0, not all 0.
   *
   * @throws IllegalArgumentException with a message naming the offending entry
   */
  public static ScoringWeights parse(String value) {
    int[] w = {-1, -1, -1};
    for (String raw : value.split(",", -1)) {
      String entry = raw.trim();
      if (entry.isEmpty()) {
        continue;
      }
      int eq = entry.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("expected key=value entries, got \"" + entry + "\"");
      }
      String key = entry.substring(0, eq).trim();
      String v = entry.substring(eq + 1).trim();
      int i;
      switch (key) {
        case "slot" -> i = 0;
        case "core" -> i = 1;
        case "memory" -> i = 2;
        default -> throw new IllegalArgumentException("unknown weight \"" + key + "\"");
      }
      if (w[i] >= 0) {
        throw new IllegalArgumentException("duplicate \"" + key + "\" weight");
      }
      int n;
      try {
        n = Integer.parseInt(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("\"" + key + "\" weight must be an integer, got \"" + v + "\"");
      }
      if (n < 0) {
        throw new IllegalArgumentException("\"" + key + "\" weight must not be negative, got " + n);
      }
      w[i] = n;
    }
    if (w[0] < 0 || w[1] < 0 || w[2] < 0) {
      throw new IllegalArgumentException("expected slot, core, and memory weights, got \"" + value + "\"");
    }
    if (w[0] == 0 && w[1] == 0 && w[2] == 0) {
      throw new IllegalArgumentException("at least one weight must be positive");
    }
    return new ScoringWeights(w[0], w[1], w[2]);
  }
}
