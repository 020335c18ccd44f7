package io.hami.framework.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.api.Rejections;
import io.hami.framework.api.Status;
import org.junit.jupiter.api.Test;

class RejectionsTest {

  @Test
  void oneStatusPerKey_untilTheBound() {
    Rejections<String> r = new Rejections<>(2);
    Status a = r.of("a", Status::unschedulable);
    assertThat(r.of("a", Status::unschedulable)).isSameAs(a);
    assertThat(r.of("b", Status::unschedulable)).isNotSameAs(a);
    // Past the bound, a fresh status each time, with the same reasons.
    Status c = r.of("c", Status::unschedulable);
    assertThat(r.of("c", Status::unschedulable)).isNotSameAs(c).isEqualTo(c);
    assertThat(c.reasons()).containsExactly("c");
  }
}
