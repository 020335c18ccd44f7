package io.hami.cmd.bench;

/**
 * When a scheduler warmed up in rounds has reached steady state: at least {@link #MIN_PODS} pods
 * behind it, its CPU per pod no longer falling, and its JIT compiler using at most {@link
 * #MAX_JIT_SHARE} of the round's CPU. A JVM scheduler compiles its hot code over its first
 * thousands of pods: code run once per pod reaches the optimizing compiler only after some 10,000
 * pods, and after five rounds of 1,000 pods the compiler threads still used 44% of a measured
 * drain's CPU while the CPU per pod had stopped falling. A deployed scheduler is measured past that
 * point. kube-scheduler, compiled ahead of time, follows the same rule with no JIT.
 */
final class SteadyState {
  /** Warm-up pods at least, whatever the CPU per pod does. */
  static final int MIN_PODS = 2_000;

  /** Rounds at most, whatever the CPU per pod does. */
  static final int MAX_ROUNDS = 20;

  /** A round at most this much below the best round before it counts as settled. */
  static final double SETTLED_DROP = 0.10;

  /** The JIT compiler's share of a round's CPU at most, for the round to count as settled. */
  static final double MAX_JIT_SHARE = 0.10;

  private SteadyState() {}

  /**
   * Whether warm-up can stop after round {@code round} (from 1).
   *
   * @param pods the warm-up pods of every round so far, this one included
   * @param best the least CPU per pod of the rounds before (ignored for the first round)
   * @param perPod this round's CPU per pod
   * @param jitShare the JIT compiler threads' share of this round's CPU (0 without a JIT, or when
   *     it cannot be read)
   */
  static boolean settled(int round, int pods, double best, double perPod, double jitShare) {
    if (round >= MAX_ROUNDS) {
      return true;
    }
    return round >= 2
        && pods >= MIN_PODS
        && perPod >= best * (1 - SETTLED_DROP)
        && jitShare <= MAX_JIT_SHARE;
  }
}
