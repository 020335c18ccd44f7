package io.hami.plugins.vgpu;

import static com.google.common.base.Preconditions.checkArgument;

import io.hami.model.Decoded;

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
   * Parses {@code hami.io/device-scoring-weights} with the protocol model's decoder.
   *
   * @throws IllegalArgumentException with a message naming the offending entry
   */
  public static ScoringWeights parse(String value) {
    Decoded<io.hami.model.pod.ScoringWeights> d = io.hami.model.pod.ScoringWeights.decode(value);
    if (d instanceof Decoded.Err<io.hami.model.pod.ScoringWeights> e) {
      throw new IllegalArgumentException(e.error().message());
    }
    io.hami.model.pod.ScoringWeights w = d.orElse(io.hami.model.pod.ScoringWeights.DEFAULT);
    return new ScoringWeights(w.slot(), w.core(), w.memory());
  }
}
