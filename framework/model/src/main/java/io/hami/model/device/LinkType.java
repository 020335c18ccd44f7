package io.hami.model.device;

import java.util.List;

/**
 * A P2P link between two GPUs and the score it adds to the pair (NVML topology levels and NVLink).
 */
public enum LinkType {
  /** Across CPU sockets. */
  SYS(10),
  /** Same CPU / NUMA node. */
  NODE(20),
  /** Host bridge. */
  PHB(30),
  /** Several PCIe switches. */
  PXB(40),
  /** One PCIe switch. */
  PIX(50),
  /** Same board. */
  SAME_BOARD(60),
  /** One NVLink; k links between a pair appear k times. */
  NVLINK(100);

  private final int score;

  LinkType(int score) {
    this.score = score;
  }

  /** Score of one link of this type. */
  public int score() {
    return score;
  }

  /**
   * The score of a pair from its link lists in both directions: the sum of the forward links, or 0
   * when the two lists differ in length (an asymmetric pair, which the node agent reports as a
   * warning event).
   */
  public static PairLinkScore pairScore(List<LinkType> forward, List<LinkType> backward) {
    if (forward.size() != backward.size()) {
      return new PairLinkScore(0, true);
    }
    int sum = 0;
    for (LinkType l : forward) {
      sum += l.score;
    }
    return new PairLinkScore(sum, false);
  }

  /**
   * A pair's score.
   *
   * @param score summed link score
   * @param asymmetric whether the two directions disagree
   */
  public record PairLinkScore(int score, boolean asymmetric) {}
}
