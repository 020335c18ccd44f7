package io.hami.framework.runtime;

import static io.hami.framework.runtime.FrameworkRuntime.pluginError;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.ExactScorePlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Status;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The runners of one profile's PreScore, Score and NormalizeScore points, with the Score plugins'
 * weights and the profile's {@code primaryScore} order. Immutable; Score runners may be called
 * concurrently for different nodes.
 */
public final class ScorePoints {
  private final String profileName;
  final PreScorePlugin[] preScore;
  final ScorePlugin[] score;
  private final long[] scoreWeights;
  private final int[] primaryScores;
  private final SchedulerMetrics metrics;

  ScorePoints(
      String profileName,
      PreScorePlugin[] preScore,
      ScorePlugin[] score,
      Map<String, Integer> weights,
      List<String> primaryScoreNames,
      SchedulerMetrics metrics) {
    this.profileName = profileName;
    this.preScore = preScore;
    this.score = score;
    this.scoreWeights = new long[score.length];
    for (int i = 0; i < score.length; i++) {
      scoreWeights[i] = weights.getOrDefault(score[i].name(), 1);
    }
    List<String> scoreNames = Arrays.stream(score).map(ScorePlugin::name).toList();
    this.primaryScores =
        primaryScoreNames.stream().mapToInt(scoreNames::indexOf).filter(i -> i >= 0).toArray();
    this.metrics = metrics;
  }

  /** Runs PreScore; returns null on success (with skipped score plugins marked) or the error. */
  public @Nullable Status runPreScore(
      CycleState state, Pod pod, List<NodeInfo> feasible, boolean[] skipScore) {
    long start = System.nanoTime();
    Status result = null;
    for (PreScorePlugin p : preScore) {
      Status s;
      try {
        s = p.preScore(state, pod, feasible);
      } catch (RuntimeException e) {
        s = pluginError(p, "PreScore", pod, e);
      }
      if (s.isSkip()) {
        for (int i = 0; i < score.length; i++) {
          if (score[i].name().equals(p.name())) {
            skipScore[i] = true;
          }
        }
        continue;
      }
      if (!s.isSuccess()) {
        result = s.withPlugin(p.name());
        break;
      }
    }
    metrics.extensionPoint(
        "PreScore",
        result == null ? "Success" : result.code().name(),
        profileName,
        System.nanoTime() - start);
    return result;
  }

  public int scorePluginCount() {
    return score.length;
  }

  /**
   * The indexes of the Score plugins whose scores order nodes, first deciding (the profile's {@code
   * primaryScore}); empty when the weighted sum decides. A copy.
   */
  public int[] primaryScoreIndexes() {
    return primaryScores.clone();
  }

  /** Whether Score plugin {@code i} gives an unrounded score ({@link ExactScorePlugin}). */
  public boolean hasExactScore(int i) {
    return score[i] instanceof ExactScorePlugin;
  }

  /** Score plugin {@code i}'s unrounded score; only when {@link #hasExactScore}. */
  public double runExactScore(int i, CycleState state, Pod pod, NodeInfo node) {
    return ((ExactScorePlugin) score[i]).exactScore(state, pod, node);
  }

  /** Runs Score plugin {@code i} on one node; exceptions propagate to {@link #scoreError}. */
  public long runScore(int i, CycleState state, Pod pod, NodeInfo node) {
    return score[i].score(state, pod, node);
  }

  public Status scoreError(int i, Pod pod, RuntimeException e) {
    return pluginError(score[i], "Score", pod, e).withPlugin(score[i].name());
  }

  /** Normalizes and weights the raw scores of plugin {@code i} in place; null on success. */
  public @Nullable Status normalizeAndWeigh(
      int i, CycleState state, Pod pod, List<NodeInfo> nodes, long[] raw) {
    ScorePlugin p = score[i];
    if (p instanceof ScoreExtensions x) {
      Status s;
      try {
        s = x.normalizeScore(state, pod, new NodeScores(nodes, raw));
      } catch (RuntimeException e) {
        s = pluginError(p, "NormalizeScore", pod, e);
      }
      if (!s.isSuccess()) {
        return s.withPlugin(p.name());
      }
    }
    long w = scoreWeights[i];
    for (int n = 0; n < raw.length; n++) {
      long v = raw[n];
      if (v < ScorePlugin.MIN_NODE_SCORE || v > ScorePlugin.MAX_NODE_SCORE) {
        return Status.error(
                "plugin "
                    + p.name()
                    + " returned score "
                    + v
                    + " for node "
                    + nodes.get(n).name()
                    + ", outside [0, 100]")
            .withPlugin(p.name());
      }
      raw[n] = v * w;
    }
    return null;
  }
}
