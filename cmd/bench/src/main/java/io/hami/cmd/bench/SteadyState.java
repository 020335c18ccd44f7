package io.hami.cmd.bench;

/**
 * When a scheduler warmed up in rounds has reached steady state: its CPU per pod has stopped
 * falling. A JVM scheduler compiles its hot code over its first thousands of pods (one measured set
 * of a scaled-down workload leaves its compiler queue still full); a deployed one is measured past
 * that point, and so is kube-scheduler, compiled ahead of time, after its first round.
 */
final class SteadyState {
  /** Rounds at most, whatever the CPU per pod does. */
  static final int MAX_ROUNDS = 10;

  /** A round at most this much below the best round before it counts as settled. */
  static final double SETTLED_DROP = 0.10;

  private SteadyState() {}

  /**
   * Whether warm-up can stop after round {@code round} (from 1).
   *
   * @param best the least CPU per pod of the rounds before (ignored for the first round)
   * @param perPod this round's CPU per pod
   */
  static boolean settled(int round, double best, double perPod) {
    if (round >= MAX_ROUNDS) {
      return true;
    }
    return round >= 2 && perPod >= best * (1 - SETTLED_DROP);
  }
}
