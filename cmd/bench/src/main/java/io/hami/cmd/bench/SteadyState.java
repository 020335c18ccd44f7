package io.hami.cmd.bench;

/**
 * When a scheduler warmed up in rounds has reached steady state: at least {@link #MIN_PODS} pods
 * behind it and its CPU per pod no longer falling. A JVM scheduler compiles its hot code over its
 * first thousands of pods (after one measured set of a scaled-down workload its compiler still
 * compiled hundreds of methods a second; after about 2,000 pods a few dozen); a deployed one is
 * measured past that point. kube-scheduler, compiled ahead of time, follows the same rule.
 */
final class SteadyState {
  /** Warm-up pods at least, whatever the CPU per pod does. */
  static final int MIN_PODS = 2_000;

  /** Rounds at most, whatever the CPU per pod does. */
  static final int MAX_ROUNDS = 20;

  /** A round at most this much below the best round before it counts as settled. */
  static final double SETTLED_DROP = 0.10;

  private SteadyState() {}

  /**
   * Whether warm-up can stop after round {@code round} (from 1).
   *
   * @param pods the warm-up pods of every round so far, this one included
   * @param best the least CPU per pod of the rounds before (ignored for the first round)
   * @param perPod this round's CPU per pod
   */
  static boolean settled(int round, int pods, double best, double perPod) {
    if (round >= MAX_ROUNDS) {
      return true;
    }
    return round >= 2 && pods >= MIN_PODS && perPod >= best * (1 - SETTLED_DROP);
  }
}
