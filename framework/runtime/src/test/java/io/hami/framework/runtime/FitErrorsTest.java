package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.api.Status;
import org.junit.jupiter.api.Test;

class FitErrorsTest {

  @Test
  void message_countsReasonsLargestFirst() {
    Status[] statuses = new Status[5000];
    for (int i = 0; i < 4000; i++) {
      statuses[i] = Status.unschedulable("CardInsufficientMemory");
    }
    for (int i = 4000; i < 5000; i++) {
      statuses[i] = Status.unresolvable("node(s) were unschedulable");
    }
    assertThat(FitErrors.message(5000, statuses, 5000, 0))
        .isEqualTo(
            "0/5000 nodes are available: 4000 CardInsufficientMemory, 1000 node(s) were unschedulable.");
  }

  @Test
  void message_countsSharedStatusesOncePerNode() {
    Status shared =
        Status.unschedulable("Insufficient cpu", "Insufficient memory")
            .withPlugin("NodeResourcesFit");
    Status other = Status.unschedulable("Insufficient cpu").withPlugin("NodeResourcesFit");
    Status[] statuses = new Status[10];
    for (int i = 0; i < 10; i++) {
      statuses[i] = i % 3 == 0 ? other : shared;
    }
    statuses[5] = null;
    assertThat(FitErrors.message(10, statuses, 10, 2))
        .isEqualTo(
            "0/10 nodes are available: 9 Insufficient cpu, 5 Insufficient memory,"
                + " 2 node(s) didn't satisfy plugin(s) PreFilter.");
  }

  @Test
  void plugins_splitsACommaSeparatedList() {
    assertThat(FitErrors.plugins(Status.unschedulable("x").withPlugin("A,B")))
        .containsExactlyInAnyOrder("A", "B");
    assertThat(FitErrors.plugins(Status.unschedulable("x"))).isEmpty();
  }
}
