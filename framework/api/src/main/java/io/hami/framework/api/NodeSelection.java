package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How the scheduling cycle chose the pod's node, written to {@link CycleState} under {@link #KEY}
 * before Reserve, so that a plugin can record the decision on the pod in a write it already makes
 * (PreBind). Immutable.
 *
 * @param evaluated nodes Filter ran on
 * @param feasible nodes that passed Filter
 * @param score the chosen node's total weighted score; null when it was the only feasible node and
 *     Score did not run
 * @param top the best-scored candidates, highest first (at most {@link #TOP}); empty without
 *     scoring
 */
public record NodeSelection(int evaluated, int feasible, @Nullable Long score, List<Candidate> top)
    implements StateData {

  /** Where the runtime stores the selection. */
  public static final StateKey<NodeSelection> KEY =
      StateKey.of("FrameworkNodeSelection", NodeSelection.class);

  /** How many candidates {@link #top} keeps. */
  public static final int TOP = 3;

  /** One candidate node and its total weighted score. */
  public record Candidate(String node, long score) {
    public Candidate {
      requireNonNull(node, "node");
    }
  }

  public NodeSelection {
    top = List.copyOf(top);
  }
}
