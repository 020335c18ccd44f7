package io.hami.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PriorityReplayTest {

  /**
   * Two nodes of one GPU each and pods that each want a quarter of one: eight fit, and the replay's
   * tuning (130% of capacity) submits ten.
   */
  private static PreparedTrace twoGpus() {
    List<TraceNode> nodes =
        List.of(
            new TraceNode("n0", 64_000, 262_144, 1, "T4"),
            new TraceNode("n1", 64_000, 262_144, 1, "T4"));
    List<TracePod> pods = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      pods.add(new TracePod("p" + i, 1000, 1024, 1, 250, "", List.of()));
    }
    return PreparedTrace.of(new Trace("two-gpus", nodes, pods));
  }

  @Test
  void preemption_placesEveryHighPriorityPodThatCapacityAllows() {
    PriorityReplay replay = new PriorityReplay(twoGpus(), 0.5);
    boolean sawGain = false;
    for (long seed = 1; seed <= 20; seed++) {
      PriorityReplay.Result without = replay.run(seed, false);
      PriorityReplay.Result with = replay.run(seed, true);

      assertThat(with.highSubmitted()).isEqualTo(without.highSubmitted());
      assertThat(with.highSubmitted() + with.lowSubmitted()).isEqualTo(10);
      // Without preemption the first eight arrivals run; with it, a high-priority pod always
      // finds a low-priority share to evict while any is running.
      assertThat(without.highPlaced() + without.lowPlaced()).isEqualTo(8);
      assertThat(without.lowEvicted()).isZero();
      assertThat(with.highPlaced()).isEqualTo(Math.min(8, with.highSubmitted()));
      assertThat(with.highPlaced() + with.lowRunningAtEnd()).isEqualTo(8);
      assertThat(with.lowEvicted()).isEqualTo(with.lowPlaced() - with.lowRunningAtEnd());
      assertThat(with.gpuMilliAllocatedAtEnd()).isEqualTo(2000);
      sawGain |= with.highPlaced() > without.highPlaced();
    }
    assertThat(sawGain)
        .as("some seed lets a high-priority pod arrive after the GPUs fill")
        .isTrue();
  }

  @Test
  void equalPriorities_evictNothing() {
    for (double share : new double[] {0, 1}) {
      PriorityReplay.Result with = new PriorityReplay(twoGpus(), share).run(7, true);
      assertThat(with.lowEvicted()).isZero();
      assertThat(with.highPlaced() + with.lowPlaced()).isEqualTo(8);
    }
  }

  @Test
  void share_outsideZeroToOne_isRefused() {
    assertThatThrownBy(() -> new PriorityReplay(twoGpus(), 1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1.5");
  }
}
