package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.api.FailedAttempt.Diagnosis;
import io.hami.framework.api.FailedAttempt.NodeReasons;
import io.hami.framework.api.FailedAttempt.ReasonCount;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.api.NodeSelection.Candidate;
import io.hami.framework.api.Status;
import io.hami.framework.cache.SchedulerCache;
import io.hami.framework.testing.MakeNode;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttemptRecordsTest {
  private static final Instant T = Instant.parse("2026-11-29T13:53:11Z");

  private static List<NodeInfo> nodes(int n) {
    SchedulerCache cache = new SchedulerCache(InstantSource.fixed(T));
    List<NodeInfo> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = String.format("n%02d", i);
      cache.addNode(MakeNode.named(name).capacity("8", "16Gi", 110).obj());
      out.add(cache.nodeInfo(name));
    }
    return out;
  }

  @Test
  void filterFailure_countsReasonsAndKeepsTheNodesWithFewestReasons() {
    List<NodeInfo> nodes = nodes(8);
    Status[] statuses = new Status[8];
    for (int i = 0; i < 8; i++) {
      statuses[i] =
          i % 3 == 0
              ? Status.unschedulable("CardInsufficientMemory")
              : Status.unschedulable("CardInsufficientMemory", "CardInsufficientCore");
    }
    statuses[5] = null; // a node that passed before the attempt stopped looking

    Diagnosis f = AttemptRecords.filterFailure(T, 10, statuses, nodes, 2, null);

    assertThat(f.reason()).isEqualTo("Unschedulable");
    assertThat(f.node()).isNull();
    assertThat(f.nodes()).isEqualTo(10);
    assertThat(f.reasons())
        .containsExactly(
            new ReasonCount("CardInsufficientMemory", 7),
            new ReasonCount("CardInsufficientCore", 4),
            new ReasonCount(AttemptRecords.PREFILTER_EXCLUDED, 2));
    assertThat(f.closest())
        .extracting(NodeReasons::node)
        .containsExactly("n00", "n03", "n06", "n01", "n02");
    assertThat(f.closest().get(3).reasons())
        .containsExactly("CardInsufficientMemory", "CardInsufficientCore");
  }

  @Test
  void filterFailure_breaksTiesByNameRankWhenGiven() {
    // Nodes listed out of name order; the ranks put them back in it.
    List<NodeInfo> nodes = nodes(4);
    List<NodeInfo> listed = List.of(nodes.get(2), nodes.get(0), nodes.get(3), nodes.get(1));
    int[] ranks = {2, 0, 3, 1};
    Status[] statuses = new Status[4];
    Arrays.fill(statuses, Status.unschedulable("CardInsufficientMemory"));

    Diagnosis byRank = AttemptRecords.filterFailure(T, 4, statuses, listed, 0, ranks);
    Diagnosis byName = AttemptRecords.filterFailure(T, 4, statuses, listed, 0, null);

    assertThat(byRank.closest())
        .extracting(NodeReasons::node)
        .containsExactly("n00", "n01", "n02", "n03");
    assertThat(byRank).isEqualTo(byName);
  }

  @Test
  void failure_countsTheWholeMessageOnce() {
    Diagnosis f =
        AttemptRecords.failure(T, "Unschedulable", "n1", 3, "node n1 is locked by ns/p", 1);

    assertThat(f.node()).isEqualTo("n1");
    assertThat(f.reasons()).containsExactly(new ReasonCount("node n1 is locked by ns/p", 1));
    assertThat(f.closest()).isEmpty();
  }

  @Test
  void scored_keepsTheBestCandidates_withTheChosenNodeFirstOnATie() {
    List<NodeInfo> nodes = nodes(6);
    long[] total = {50, 90, 70, 90, 90, 10};

    NodeSelection s = AttemptRecords.scored(6, nodes, total, NodeOrder.by(total), 4);

    assertThat(s.evaluated()).isEqualTo(6);
    assertThat(s.feasible()).isEqualTo(6);
    assertThat(s.score()).isEqualTo(90L);
    assertThat(s.top())
        .containsExactly(
            new Candidate("n04", 90), new Candidate("n01", 90), new Candidate("n03", 90));
  }

  @Test
  void scored_listsNodesInThePrimaryOrder() {
    long[] total = {90, 10, 50};
    double[][] first = {{1.5, 2.25, 2.25}};
    NodeSelection s = AttemptRecords.scored(3, nodes(3), total, NodeOrder.by(first, total), 2);

    assertThat(s.score()).isEqualTo(50L);
    assertThat(s.top())
        .containsExactly(
            new Candidate("n02", 50), new Candidate("n01", 10), new Candidate("n00", 90));
  }

  @Test
  void scored_withFewerNodesThanTheTopSize() {
    long[] total = {3, 8};
    NodeSelection s = AttemptRecords.scored(9, nodes(2), total, NodeOrder.by(total), 1);

    assertThat(s.top()).containsExactly(new Candidate("n01", 8), new Candidate("n00", 3));
  }
}
