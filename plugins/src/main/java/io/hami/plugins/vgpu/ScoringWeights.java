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

  /** The weights of the protocol model's decoded annotation. */
  public static ScoringWeights of(io.hami.model.pod.ScoringWeights w) {
    return new ScoringWeights(w.slot(), w.core(), w.memory());
  }
}
