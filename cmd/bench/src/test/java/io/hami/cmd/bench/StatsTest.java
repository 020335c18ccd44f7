package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class StatsTest {
  record Case(String name, double[] values, double p50, double p90, double p99, double mean) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    double[] hundred = new double[100];
    for (int i = 0; i < 100; i++) {
      hundred[i] = 100 - i;
    }
    return Stream.of(
        new Case("one value", new double[] {7}, 7, 7, 7, 7),
        new Case("two values", new double[] {1, 3}, 1, 3, 3, 2),
        new Case("1..100 unsorted", hundred, 50, 90, 99, 50.5),
        new Case("outlier", new double[] {1, 1, 1, 1, 1, 1, 1, 1, 1, 100}, 1, 1, 100, 10.9));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void of_nearestRankPercentiles(Case c) {
    Stats s = Stats.of(c.values());
    assertThat(s.count()).isEqualTo(c.values().length);
    assertThat(s.p50()).isEqualTo(c.p50());
    assertThat(s.p90()).isEqualTo(c.p90());
    assertThat(s.p99()).isEqualTo(c.p99());
    assertThat(s.mean()).isCloseTo(c.mean(), within(1e-9));
  }

  @Test
  void of_emptyIsEmpty() {
    assertThat(Stats.of(new double[0])).isEqualTo(Stats.EMPTY);
  }

  @Test
  void perSecond_countsWholeSecondsAndDropsThePartialTail() {
    long s = 1_000_000_000L;
    long start = 10 * s;
    long[] events = {
      start,
      start + s / 2,
      start + s + 1,
      start + 2 * s + 5,
      start + 2 * s + 6,
      start + 3 * s + s / 2
    };
    // Seconds 0, 1, 2 are whole; the event at 3.5 s falls in the partial fourth second.
    assertThat(Stats.perSecond(events, start)).containsExactly(2, 1, 2);
  }

  @Test
  void perSecond_aRunShorterThanASecondIsOneSample() {
    long start = 5;
    assertThat(Stats.perSecond(new long[] {6, 7, 8}, start)).containsExactly(3);
    assertThat(Stats.perSecond(new long[0], start)).isEmpty();
  }

  record RateCase(String name, long[] events, double want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<RateCase> rateCases() {
    long s = 1_000_000_000L;
    return Stream.of(
        new RateCase("none", new long[0], 0),
        new RateCase("one", new long[] {5 * s}, 0),
        new RateCase("two at once", new long[] {5 * s, 5 * s}, 0),
        new RateCase(
            "five over two seconds, unsorted", new long[] {2 * s, 0, s, s / 2, 3 * s / 2}, 2),
        new RateCase("201 over one second", evenly(201, s / 200), 200));
  }

  private static long[] evenly(int n, long step) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = i * step;
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rateCases")
  void rate_countsTheEventsAfterTheFirstOverTheirSpan(RateCase c) {
    assertThat(Stats.rate(c.events())).isCloseTo(c.want(), within(1e-9));
  }
}
