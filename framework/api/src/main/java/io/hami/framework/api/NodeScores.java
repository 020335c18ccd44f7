package io.hami.framework.api;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.List;

/**
 * One plugin's scores for the feasible nodes of an attempt, in node order. Mutable on purpose:
 * {@link ScoreExtensions#normalizeScore} rewrites the scores in place. Owned by the scheduling
 * thread.
 */
public final class NodeScores {
  private final List<NodeInfo> nodes;
  private final long[] scores;

  public NodeScores(List<NodeInfo> nodes, long[] scores) {
    checkArgument(
        nodes.size() == scores.length, "%s nodes but %s scores", nodes.size(), scores.length);
    this.nodes = nodes;
    this.scores = scores;
  }

  public int size() {
    return scores.length;
  }

  public NodeInfo node(int i) {
    return nodes.get(i);
  }

  public String nodeName(int i) {
    return nodes.get(i).name();
  }

  public long get(int i) {
    return scores[i];
  }

  public void set(int i, long score) {
    scores[i] = score;
  }

  /** Returns the highest score, or 0 when there are no nodes. */
  public long max() {
    long m = scores.length == 0 ? 0 : Long.MIN_VALUE;
    for (long s : scores) {
      m = Math.max(m, s);
    }
    return m;
  }

  /** Returns the lowest score, or 0 when there are no nodes. */
  public long min() {
    long m = scores.length == 0 ? 0 : Long.MAX_VALUE;
    for (long s : scores) {
      m = Math.min(m, s);
    }
    return m;
  }

  /**
   * Rescales linearly so that the highest score becomes {@code maxScore}; with {@code reverse},
   * lower raw scores rank higher. All-zero scores stay zero (or {@code maxScore} when reversed).
   */
  public void normalize(long maxScore, boolean reverse) {
    long max = max();
    for (int i = 0; i < scores.length; i++) {
      long s = max == 0 ? 0 : scores[i] * maxScore / max;
      scores[i] = reverse ? maxScore - s : s;
    }
  }
}
