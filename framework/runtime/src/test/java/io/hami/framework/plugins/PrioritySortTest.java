package io.hami.framework.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.QueuedPod;
import io.hami.framework.plugins.prioritysort.PrioritySortPlugin;
import io.hami.framework.testing.MakePod;
import java.time.Instant;
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
}
