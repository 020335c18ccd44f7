package io.hami.plugins.vgpu;

/** Maps HAMi's node score onto the framework's [0, 100] range, higher meaning preferred. */
public final class VgpuScoring {
  /** The highest framework node score. */
  public static final long MAX_SCORE = 100;

  /** Highest node score of a node that is not over-committed: three terms of at most 10. */
  static final float MAX_NODE_SCORE = 30f;

  private VgpuScoring() {}

  /** Binpack prefers the highest HAMi node score, spread the lowest. */
  public static long nodeScore(float hamiScore, NodePolicy policy) {
    float clamped = Math.max(0f, Math.min(MAX_NODE_SCORE, hamiScore));
    long scaled = Math.round(clamped * MAX_SCORE / MAX_NODE_SCORE);
    return policy == NodePolicy.BINPACK ? scaled : MAX_SCORE - scaled;
  }

  /**
   * The same order without rounding or clamping: binpack the HAMi node score, spread its negation.
   */
  public static double exactNodeScore(float hamiScore, NodePolicy policy) {
    return policy == NodePolicy.BINPACK ? hamiScore : -hamiScore;
  }
}
