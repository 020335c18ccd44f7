package io.hami.framework.plugins.schedulinggates;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.Code;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.QueueingHintFunction;
import io.hami.framework.api.Status;
import io.hami.framework.testing.MakePod;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SchedulingGatesPluginTest {
  private final SchedulingGatesPlugin plugin = new SchedulingGatesPlugin();

  record Case(String name, Pod pod, Code want, @Nullable String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> preEnqueueCases() {
    return Stream.of(
        new Case("no gates", MakePod.named("p").obj(), Code.SUCCESS, null),
        new Case(
            "one gate",
            MakePod.named("p").schedulingGates("example.com/quota").obj(),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for scheduling gates: [example.com/quota]"),
        new Case(
            "two gates, in order",
            MakePod.named("p").schedulingGates("a", "b").obj(),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for scheduling gates: [a b]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("preEnqueueCases")
  void preEnqueue(Case c) {
    Status s = plugin.preEnqueue(c.pod());
    assertThat(s.code()).isEqualTo(c.want());
    if (c.message() != null) {
      assertThat(s.message()).isEqualTo(c.message());
    }
  }

  @Test
  void preEnqueue_podWithoutSpec_passes() {
    Pod p = MakePod.named("p").obj();
    p.setSpec(null);
    assertThat(plugin.preEnqueue(p).isSuccess()).isTrue();
  }

  @Test
  void hint_queuesOnlyWhenThePodItselfLostItsLastGate() {
    List<ClusterEventWithHint> regs = plugin.eventsToRegister();
    assertThat(regs).hasSize(1);
    ClusterEventWithHint r = regs.get(0);
    assertThat(
            r.event()
                .matches(
                    ClusterEvent.of(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SPEC)))
        .isTrue();
    assertThat(r.event().matches(ClusterEvent.of(EventResource.NODE, ActionType.ADD))).isFalse();
    Pod gated = MakePod.named("p").schedulingGates("a").obj();
    Pod open = MakePod.named("p").obj();
    Pod stillGated = MakePod.named("p").schedulingGates("b").obj();
    Pod other = MakePod.named("other").obj();
    QueueingHintFunction hint = Objects.requireNonNull(r.hint());
    assertThat(hint.hint(gated, gated, open)).isEqualTo(QueueingHint.QUEUE);
    assertThat(hint.hint(gated, gated, stillGated)).isEqualTo(QueueingHint.SKIP);
    assertThat(hint.hint(gated, null, other)).isEqualTo(QueueingHint.SKIP);
  }
}
