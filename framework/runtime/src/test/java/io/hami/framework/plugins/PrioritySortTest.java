package io.hami.framework.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.QueuedPod;
import io.hami.framework.plugins.helper.PodGroups;
import io.hami.framework.plugins.prioritysort.PrioritySortPlugin;
import io.hami.framework.testing.MakePod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrioritySortTest {
  private static QueuedPod queued(Pod p, long second) {
    Instant t = Instant.ofEpochSecond(second);
    return new QueuedPod() {
      @Override
      public Pod pod() {
        return p;
      }

      @Override
      public Instant timestamp() {
        return t;
      }

      @Override
      public Instant initialTimestamp() {
        return t;
      }

      @Override
      public int attempts() {
        return 0;
      }
    };
  }

  @Test
  void higherPriorityFirst_thenOlderFirst() {
    PrioritySortPlugin sort = new PrioritySortPlugin();
    QueuedPod high = queued(MakePod.named("h").priority(100).obj(), 5);
    QueuedPod lowOld = queued(MakePod.named("lo").obj(), 1);
    QueuedPod lowNew = queued(MakePod.named("ln").priority(0).obj(), 2);
    assertThat(sort.compare(high, lowOld)).isNegative();
    assertThat(sort.compare(lowOld, lowNew)).isNegative();
    assertThat(sort.compare(lowNew, lowOld)).isPositive();
  }

  @Test
  void groupMembersSortAsOneBlock_byTheGroupsTime() {
    PrioritySortPlugin sort = new PrioritySortPlugin();
    // Gang a's first member arrived at 1, gang b's at 2; their later members interleave in time.
    QueuedPod a1 = queued(MakePod.named("a1").podGroup("a").obj(), 1);
    QueuedPod b1 = queued(MakePod.named("b1").podGroup("b").obj(), 2);
    QueuedPod a2 = queued(MakePod.named("a2").podGroup("a").obj(), 3);
    QueuedPod b2 =
        queued(
            MakePod.named("b2")
                .annotation(PodGroups.NAME_ANNOTATION, "b")
                .annotation(PodGroups.MIN_AVAILABLE_ANNOTATION, "2")
                .obj(),
            4);
    QueuedPod plain = queued(MakePod.named("p").obj(), 2);
    // The queue meets each gang's first member first; that fixes the gang's time.
    assertThat(sort.compare(a1, b1)).isNegative();
    List<QueuedPod> order = new ArrayList<>(List.of(b2, plain, a2, b1, a1));
    order.sort(sort::compare);
    assertThat(order)
        .extracting(q -> q.pod().getMetadata().getName())
        .containsExactly("a1", "a2", "p", "b1", "b2");
  }

  @Test
  void priorityStillComesFirst() {
    PrioritySortPlugin sort = new PrioritySortPlugin();
    QueuedPod gang = queued(MakePod.named("g").podGroup("g").obj(), 1);
    QueuedPod urgent = queued(MakePod.named("u").priority(10).obj(), 9);
    assertThat(sort.compare(urgent, gang)).isNegative();
    assertThat(sort.compare(gang, urgent)).isPositive();
  }
}
