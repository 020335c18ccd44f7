package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Protocol §10.5 (V34, V35) and the stale-lock rules. */
final class LockArbiterTest {

  static final Instant NOW = Instant.parse("2026-08-21T08:20:39Z");
  static final String FRESH = "2026-08-21T08:19:39Z"; // one minute old
  static final String OLD = "2026-08-21T08:10:39Z"; // ten minutes old
  final LockArbiter arbiter = new LockArbiter(Duration.ofMinutes(5));

  record Case(
      String name,
      @Nullable String value,
      @Nullable HolderState holder,
      Class<?> want,
      @Nullable StaleCause cause) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("V34 no lock", null, null, LockDecision.Free.class, null),
        new Case("V34 unparsable", "lock", null, LockDecision.Stale.class, StaleCause.UNPARSEABLE),
        new Case(
            "V34 fresh lock of another pod",
            FRESH + ",other-ns,other-pod",
            HolderState.BINDING,
            LockDecision.Held.class,
            null),
        new Case(
            "V34 same ns other pod",
            FRESH + ",hami-ns,other",
            HolderState.WAITING_ALLOCATE,
            LockDecision.Held.class,
            null),
        new Case(
            "V35 expired",
            OLD + ",other-ns,other-pod",
            HolderState.BINDING,
            LockDecision.Stale.class,
            StaleCause.EXPIRED),
        new Case(
            "V35 holder absent",
            FRESH + ",other-ns,gone",
            HolderState.GONE,
            LockDecision.Stale.class,
            StaleCause.HOLDER_GONE),
        new Case(
            "V35 same pod re-locks", FRESH + ",hami-ns,hami", null, LockDecision.Mine.class, null),
        new Case(
            "holder terminal",
            FRESH + ",ns,done",
            HolderState.TERMINAL,
            LockDecision.Stale.class,
            StaleCause.HOLDER_TERMINAL),
        new Case(
            "holder served by node agent",
            FRESH + ",ns,served",
            HolderState.BIND_SUCCEEDED,
            LockDecision.Stale.class,
            StaleCause.BIND_SUCCESS),
        new Case(
            "holder's allocation failed",
            FRESH + ",ns,failed",
            HolderState.BIND_FAILED,
            LockDecision.Stale.class,
            StaleCause.BIND_FAILED),
        new Case(
            "holder bound elsewhere",
            FRESH + ",ns,moved",
            HolderState.ELSEWHERE,
            LockDecision.Stale.class,
            StaleCause.HOLDER_ELSEWHERE),
        new Case(
            "expired but holder waits for Allocate",
            OLD + ",ns,waiting",
            HolderState.WAITING_ALLOCATE,
            LockDecision.Held.class,
            null),
        new Case("legacy time-only fresh", FRESH, null, LockDecision.Held.class, null),
        new Case(
            "legacy time-only expired", OLD, null, LockDecision.Stale.class, StaleCause.EXPIRED),
        new Case(
            "offset time",
            "2026-08-21T16:19:39+08:00,ns,p",
            HolderState.BINDING,
            LockDecision.Held.class,
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void decide(Case c) {
    BiFunction<String, String, HolderState> lookup =
        (ns, name) -> {
          assertThat(c.holder()).as("holder looked up").isNotNull();
          return c.holder();
        };
    LockDecision d = arbiter.decide(c.value(), "hami-ns", "hami", NOW, lookup);
    assertThat(d).isInstanceOf(c.want());
    if (c.cause() != null) {
      assertThat(((LockDecision.Stale) d).cause()).isEqualTo(c.cause());
    }
    assertThat(d.takeable()).isEqualTo(!(d instanceof LockDecision.Held));
  }

  @Test
  void holderState_classifiesPods() {
    String bp = Annotations.BIND_PHASE;
    assertThat(HolderState.of(null, "n1", bp)).isEqualTo(HolderState.GONE);
    assertThat(HolderState.of(MakePod.named("p").phase("Failed").obj(), "n1", bp))
        .isEqualTo(HolderState.TERMINAL);
    assertThat(HolderState.of(MakePod.named("p").phase("Succeeded").obj(), "n1", bp))
        .isEqualTo(HolderState.TERMINAL);
    assertThat(
            HolderState.of(
                MakePod.named("p").annotation(bp, "success").nodeName("n1").obj(), "n1", bp))
        .isEqualTo(HolderState.BIND_SUCCEEDED);
    assertThat(
            HolderState.of(
                MakePod.named("p").annotation(bp, "failed").nodeName("n1").obj(), "n1", bp))
        .isEqualTo(HolderState.BIND_FAILED);
    assertThat(
            HolderState.of(
                MakePod.named("p").annotation(bp, "allocating").nodeName("n1").obj(), "n1", bp))
        .isEqualTo(HolderState.WAITING_ALLOCATE);
    assertThat(HolderState.of(MakePod.named("p").nodeName("n2").obj(), "n1", bp))
        .isEqualTo(HolderState.ELSEWHERE);
    assertThat(HolderState.of(MakePod.named("p").obj(), "n1", bp)).isEqualTo(HolderState.BINDING);
  }
}
