package io.hami.sim;

import java.util.List;

/** The results of a simulation: one summary per trace, the seeds used and the wall time. */
public record SimulationReport(List<TraceSummary> traces, List<Long> seeds, double seconds) {
  public SimulationReport {
    traces = List.copyOf(traces);
    seeds = List.copyOf(seeds);
  }
}
