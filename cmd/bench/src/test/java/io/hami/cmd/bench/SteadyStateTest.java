package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class SteadyStateTest {
  record Case(String name, int round, double best, double perPod, boolean settled) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("first round never settles", 1, Double.MAX_VALUE, 0.002, false),
        new Case("still falling by more than a tenth", 2, 0.010, 0.0085, false),
        new Case("within a tenth of the best", 3, 0.003, 0.0028, true),
        new Case("above the best (noise)", 4, 0.003, 0.004, true),
        new Case("just under a tenth below", 2, 0.010, 0.0091, true),
        new Case(
            "last round settles whatever it costs", SteadyState.MAX_ROUNDS, 0.010, 0.001, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void settled(Case c) {
    assertThat(SteadyState.settled(c.round(), c.best(), c.perPod())).isEqualTo(c.settled());
  }
}
