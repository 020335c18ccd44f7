package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Optional capability of a {@link ScorePlugin}: rescale its raw scores into {@code [0, 100]} after
 * all nodes were scored. Called once per attempt on the scheduling thread.
 *
 * <p>Allowed codes: {@link Code#SUCCESS} or {@link Code#ERROR}.
 */
public interface ScoreExtensions {

  Status normalizeScore(CycleState state, Pod pod, NodeScores scores);
}
