package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Quantities as whole numbers, each method naming its unit and its rounding.
 *
 * <p>Every method throws {@link IllegalArgumentException} when the quantity cannot be parsed and
 * {@link ArithmeticException} when the result does not fit (or, for the exact ones, is not whole);
 * callers decide whether that is an error, a warning or "absent".
 */
public final class Quantities {
  private static final BigDecimal MEBI = BigDecimal.valueOf(1L << 20);

  private Quantities() {}

  /** The amount rounded up to a whole number (2.1 -> 3, 100Mi -> 104857600). */
  public static long toLongCeil(Quantity q) {
    return q.getNumericalAmount().setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /**
   * The amount rounded up to a whole number, which must not be negative: -0.5 throws, where {@link
   * #toLongCeil} would give 0.
   */
  public static long toNonNegativeLongCeil(Quantity q) {
    BigDecimal v = q.getNumericalAmount();
    if (v.signum() < 0) {
      throw new ArithmeticException("negative");
    }
    return v.setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /** The amount in thousandths, rounded up: millicores for cpu (0.5 -> 500, 1m -> 1). */
  public static long toMillisCeil(Quantity q) {
    return q.getNumericalAmount()
        .movePointRight(3)
        .setScale(0, RoundingMode.CEILING)
        .longValueExact();
  }

  /** The amount divided by 2^20, rounded up: mebibytes for memory (1Gi -> 1024, 1 -> 1). */
  public static long toMebibytesCeil(Quantity q) {
    return q.getNumericalAmount().divide(MEBI, 0, RoundingMode.CEILING).longValueExact();
  }

  /** The amount with its fraction dropped, toward zero (2.9 -> 2, -2.9 -> -2). */
  public static long toLongTruncated(Quantity q) {
    return q.getNumericalAmount().setScale(0, RoundingMode.DOWN).longValueExact();
  }

  /** The amount, which must be a whole number (3 -> 3, 1k -> 1000; 1.5 throws). */
  public static long toLongExact(Quantity q) {
    return q.getNumericalAmount().longValueExact();
  }
}
