package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.queue.Nominator;
import org.jspecify.annotations.Nullable;

/**
 * What Filter runs with on every node of one cycle; made once per cycle, so the per-node call
 * allocates nothing.
 */
final class FilterInput {
  final CycleState state;
  final Pod pod;

  /** Filter plugins PreFilter told to skip, by position. */
  final boolean[] skip;

  /** When not null, per-plugin elapsed time is added into it (sampled cycles). */
  final long @Nullable [] pluginNanos;

  /** The pod's class for reusing kept verdicts, or null to run the plugins. */
  final FilterVerdicts.@Nullable PodClass podClass;

  /**
   * The nominator when some pod is nominated at the start of the cycle, else null: Filter then
   * looks up each node's nominated pods, and a node that has some gets no kept verdict.
   */
  final @Nullable Nominator nominator;

  FilterInput(
      CycleState state,
      Pod pod,
      boolean[] skip,
      long @Nullable [] pluginNanos,
      FilterVerdicts.@Nullable PodClass podClass,
      @Nullable Nominator nominator) {
    this.state = state;
    this.pod = pod;
    this.skip = skip;
    this.pluginNanos = pluginNanos;
    this.podClass = podClass;
    this.nominator = nominator;
  }
}
