package io.hami.framework.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class QuantitiesTest {
  private static final ToLongFunction<Quantity> CEIL = Quantities::toLongCeil;
  private static final ToLongFunction<Quantity> NON_NEGATIVE = Quantities::toNonNegativeLongCeil;
  private static final ToLongFunction<Quantity> MILLIS = Quantities::toMillisCeil;
  private static final ToLongFunction<Quantity> MEBI = Quantities::toMebibytesCeil;
  private static final ToLongFunction<Quantity> TRUNC = Quantities::toLongTruncated;
  private static final ToLongFunction<Quantity> EXACT = Quantities::toLongExact;

  static Stream<Arguments> values() {
    return Stream.of(
        Arguments.of("ceil whole", CEIL, "3", 3L),
        Arguments.of("ceil fraction", CEIL, "2.1", 3L),
        Arguments.of("ceil negative", CEIL, "-2.9", -2L),
        Arguments.of("ceil binary suffix", CEIL, "100Mi", 104_857_600L),
        Arguments.of("ceil milli", CEIL, "1m", 1L),
        Arguments.of("non-negative ceil fraction", NON_NEGATIVE, "2.1", 3L),
        Arguments.of("non-negative zero", NON_NEGATIVE, "0", 0L),
        Arguments.of("millis whole", MILLIS, "2", 2000L),
        Arguments.of("millis fraction", MILLIS, "0.5", 500L),
        Arguments.of("millis milli suffix", MILLIS, "250m", 250L),
        Arguments.of("millis below one milli", MILLIS, "0.0001", 1L),
        Arguments.of("mebibytes exact", MEBI, "1Gi", 1024L),
        Arguments.of("mebibytes rounded up", MEBI, "1", 1L),
        Arguments.of("mebibytes decimal suffix", MEBI, "1G", 954L),
        Arguments.of("mebibytes zero", MEBI, "0", 0L),
        Arguments.of("truncated whole", TRUNC, "4", 4L),
        Arguments.of("truncated fraction", TRUNC, "2.9", 2L),
        Arguments.of("truncated negative", TRUNC, "-2.9", -2L),
        Arguments.of("exact whole", EXACT, "3", 3L),
        Arguments.of("exact suffix", EXACT, "1k", 1000L),
        Arguments.of("exact trailing zeros", EXACT, "2.000", 2L));
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("values")
  void converts(String name, ToLongFunction<Quantity> f, String q, long want) {
    assertThat(f.applyAsLong(new Quantity(q))).isEqualTo(want);
  }

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of("exact fraction", EXACT, "1.5", ArithmeticException.class),
        Arguments.of("exact milli", EXACT, "1m", ArithmeticException.class),
        Arguments.of("non-negative below zero", NON_NEGATIVE, "-0.5", ArithmeticException.class),
        Arguments.of("ceil overflow", CEIL, "10E", ArithmeticException.class),
        Arguments.of("millis overflow", MILLIS, "10E", ArithmeticException.class),
        Arguments.of("truncated overflow", TRUNC, "100E", ArithmeticException.class),
        Arguments.of("unparsable", CEIL, "abc", IllegalArgumentException.class));
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("failures")
  void rejects(String name, ToLongFunction<Quantity> f, String q, Class<? extends Throwable> want) {
    assertThatThrownBy(() -> f.applyAsLong(new Quantity(q))).isInstanceOf(want);
  }
}
