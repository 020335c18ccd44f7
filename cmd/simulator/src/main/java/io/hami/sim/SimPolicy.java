package io.hami.sim;

import io.hami.plugins.placement.PaperPolicy;
import java.util.function.BiFunction;

/**
 * A policy as the simulator runs it: one replay per trace and seed. {@link #fast} replays on the
 * compact node table, with the same policy code the score plugins run and the same filters, and
 * gives the same placements as {@link #framework} (a test holds them equal) at a fraction of the
 * cost; {@link #framework} drives the real scheduler. HAMi's own policies run on either engine.
 */
public interface SimPolicy {

  String policyName();

  String displayName();

  RunResult run(PreparedTrace trace, long seed);

  static SimPolicy fast(PaperPolicy p) {
    return new Named(
        p.policyName(), p.paperName(), (trace, seed) -> new Replay(trace).run(p, seed));
  }

  static SimPolicy fast(HamiPolicy p) {
    return new Named(
        p.policyName(), p.displayName(), (trace, seed) -> new HamiReplay(trace).run(p, seed));
  }

  static SimPolicy framework(FrameworkPolicy p) {
    return new Named(
        p.policyName(), p.displayName(), (trace, seed) -> new FrameworkReplay(trace).run(p, seed));
  }

  /** A policy given by its names and the replay that runs it. */
  record Named(
      String policyName, String displayName, BiFunction<PreparedTrace, Long, RunResult> replay)
      implements SimPolicy {
    @Override
    public RunResult run(PreparedTrace trace, long seed) {
      return replay.apply(trace, seed);
    }
  }
}
