package io.hami.cmd.bench;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;
import java.util.List;

/**
 * Summary statistics of a sample: mean and nearest-rank percentiles, as scheduler_perf reports
 * them. Immutable.
 */
public record Stats(
    int count, double mean, double min, double p50, double p90, double p99, double max) {

  public static final Stats EMPTY = new Stats(0, 0, 0, 0, 0, 0, 0);

  /** Statistics of {@code values}; {@link #EMPTY} when there are none. */
  public static Stats of(double[] values) {
    if (values.length == 0) {
      return EMPTY;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    double sum = 0;
    for (double v : sorted) {
      sum += v;
    }
    return new Stats(
        sorted.length,
        sum / sorted.length,
        sorted[0],
        percentile(sorted, 50),
        percentile(sorted, 90),
        percentile(sorted, 99),
        sorted[sorted.length - 1]);
  }

  public static Stats of(List<? extends Number> values) {
    return of(values.stream().mapToDouble(Number::doubleValue).toArray());
  }

  /**
   * The nearest-rank percentile of sorted values: the smallest value with {@code p}% at or below
   * it.
   */
  static double percentile(double[] sorted, double p) {
    checkArgument(sorted.length > 0, "no values");
    checkArgument(p > 0 && p <= 100, "percentile %s must be in (0, 100]", p);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /**
   * Events per second in each whole second from {@code startNanos}: element {@code i} counts the
   * events in {@code [start + i s, start + (i+1) s)}. The last, partial second is left out unless
   * it is the only one, so a run's tail does not drag the percentiles down.
   */
  public static double[] perSecond(long[] eventNanos, long startNanos) {
    if (eventNanos.length == 0) {
      return new double[0];
    }
    long last = Long.MIN_VALUE;
    for (long t : eventNanos) {
      last = Math.max(last, t);
    }
    long span = Math.max(0, last - startNanos);
    int whole = (int) (span / 1_000_000_000L);
    int buckets = Math.max(1, whole);
    double[] counts = new double[buckets];
    for (long t : eventNanos) {
      long i = Math.max(0, (t - startNanos) / 1_000_000_000L);
      if (i < buckets) {
        counts[(int) i]++;
      } else if (whole == 0) {
        counts[0]++;
      }
    }
    return counts;
  }

  /**
   * The rate of events over their span: the events after the first, per second from the first to
   * the last; 0 with fewer than two events or no time between them.
   */
  public static double rate(long[] eventNanos) {
    if (eventNanos.length < 2) {
      return 0;
    }
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (long t : eventNanos) {
      first = Math.min(first, t);
      last = Math.max(last, t);
    }
    return last == first ? 0 : (eventNanos.length - 1) / ((last - first) / 1e9);
  }
}
