package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class SteadyStateTest {
  record Case(
      String name,
      int round,
      int pods,
      double best,
      double perPod,
      double jitShare,
      boolean settled) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("first round never settles", 1, 5000, Double.MAX_VALUE, 0.002, 0, false),
        new Case("too few pods yet", 3, 450, 0.017, 0.0165, 0, false),
        new Case("still falling by more than a tenth", 5, 2500, 0.010, 0.0085, 0, false),
        new Case("within a tenth of the best", 4, 2000, 0.003, 0.0028, 0, true),
        new Case("above the best (noise)", 6, 3000, 0.003, 0.004, 0, true),
        new Case("still compiling: 44% of the round", 5, 5000, 0.0036, 0.0044, 0.44, false),
        new Case("compiling a tenth of the round", 8, 8000, 0.0030, 0.0029, 0.10, true),
        new Case(
            "last round settles whatever it costs",
            SteadyState.MAX_ROUNDS,
            100,
            0.010,
            0.001,
            0.5,
            true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void settled(Case c) {
    assertThat(SteadyState.settled(c.round(), c.pods(), c.best(), c.perPod(), c.jitShare()))
        .isEqualTo(c.settled());
  }
}
