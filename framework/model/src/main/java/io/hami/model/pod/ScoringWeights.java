package io.hami.model.pod;

import io.hami.model.Decoded;
import io.hami.model.internal.GoText;
import java.util.List;

/**
 * Device scoring weights from {@code hami.io/device-scoring-weights}: {@code
 * slot=<n>,core=<n>,memory=<n>}, exactly these three keys in any order and nothing else (no empty
 * entry), integers ≥ 0, not all 0.
 *
 * @param slot weight of the share-slot term
 * @param core weight of the core term
 * @param memory weight of the memory term
 */
public record ScoringWeights(int slot, int core, int memory) {

  /** The weights used when the annotation is absent. */
  public static final ScoringWeights DEFAULT = new ScoringWeights(1, 1, 1);

  /**
   * Parses the annotation value: exactly three comma-separated entries, so an empty entry (a
   * trailing comma, {@code ,,}) is an error, as in HAMi.
   */
  public static Decoded<ScoringWeights> decode(String value) {
    List<String> entries = GoText.split(value, ',');
    if (entries.size() != 3) {
      return Decoded.err("", value, "expected slot, core, and memory weights");
    }
    int[] w = {-1, -1, -1};
    for (String raw : entries) {
      String entry = raw.trim();
      int eq = entry.indexOf('=');
      if (eq < 0) {
        return Decoded.err("", value, "expected key=value entries, got " + GoText.quote(entry));
      }
      String key = entry.substring(0, eq).trim();
      String v = entry.substring(eq + 1).trim();
      int slot;
      switch (key) {
        case "slot" -> slot = 0;
        case "core" -> slot = 1;
        case "memory" -> slot = 2;
        default -> {
          return Decoded.err(key, value, "unknown weight " + GoText.quote(key));
        }
      }
      if (w[slot] >= 0) {
        return Decoded.err(key, value, "duplicate " + GoText.quote(key) + " weight");
      }
      long n = GoText.parseInt32(v);
      if (n == GoText.INVALID) {
        return Decoded.err(key, v, GoText.quote(key) + " weight must be an integer");
      }
      if (n < 0) {
        return Decoded.err(key, v, GoText.quote(key) + " weight must not be negative");
      }
      w[slot] = (int) n;
    }
    if (w[0] < 0 || w[1] < 0 || w[2] < 0) {
      return Decoded.err("", value, "expected slot, core, and memory weights");
    }
    if (w[0] == 0 && w[1] == 0 && w[2] == 0) {
      return Decoded.err("", value, "at least one weight must be positive");
    }
    return Decoded.ok(new ScoringWeights(w[0], w[1], w[2]));
  }

  /** The annotation value. */
  public String encode() {
    return "slot=" + slot + ",core=" + core + ",memory=" + memory;
  }
}
