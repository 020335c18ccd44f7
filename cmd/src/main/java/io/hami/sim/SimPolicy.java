package io.hami.sim;

import io.hami.plugins.placement.PaperPolicy;

/**
 * A policy as the simulator runs it: one replay per trace and seed. {@link #fast} replays on the
 * compact node table, with the same policy code the score plugins run and the same filters, and
 * gives the same placements as {@link #framework} (a test holds them equal) at a fraction of the
 * cost; {@link #framework} drives the real scheduler, and also offers HAMi's own policies.
 */
public interface SimPolicy {

  String policyName();

  String displayName();

  RunResult run(PreparedTrace trace, long seed);

  static SimPolicy fast(PaperPolicy p) {
    return new SimPolicy() {
      @Override
      public String policyName() {
        return p.policyName();
      }

      @Override
      public String displayName() {
        return p.paperName();
      }

      @Override
      public RunResult run(PreparedTrace trace, long seed) {
        return new Replay(trace).run(p, seed);
      }
    };
  }

  static SimPolicy framework(FrameworkPolicy p) {
    return new SimPolicy() {
      @Override
      public String policyName() {
        return p.policyName();
      }

      @Override
      public String displayName() {
        return p.displayName();
      }

      @Override
      public RunResult run(PreparedTrace trace, long seed) {
        return new FrameworkReplay(trace).run(p, seed);
      }
    };
  }
}
