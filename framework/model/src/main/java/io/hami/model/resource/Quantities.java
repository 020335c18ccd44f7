package io.hami.model.resource;

import io.hami.model.Decoded;
import io.hami.model.internal.GoText;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.jspecify.annotations.Nullable;

/**
 * Kubernetes resource quantities ({@code 1}, {@code 500m}, {@code 16Gi}, {@code 1e3}) read as exact
 * numbers.
 *
 * <p>Parsing is linear and bounded: quantities longer than {@value #MAX_LENGTH} characters and
 * exponents beyond ±{@value #MAX_EXPONENT} are rejected rather than expanded.
 */
public final class Quantities {

  /** Longest quantity string accepted. */
  public static final int MAX_LENGTH = 64;

  /** Largest decimal exponent accepted. */
  public static final int MAX_EXPONENT = 64;

  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  private Quantities() {}

  /** Parses a quantity into its exact value. */
  public static Decoded<BigDecimal> parse(String field, String q) {
    if (q.isEmpty() || q.length() > MAX_LENGTH) {
      return Decoded.err(field, q, "invalid quantity " + GoText.quote(q));
    }
    int i = 0;
    int n = q.length();
    if (q.charAt(0) == '+' || q.charAt(0) == '-') {
      i++;
    }
    int digitsStart = i;
    int digits = 0;
    boolean dot = false;
    while (i < n) {
      char c = q.charAt(i);
      if (c >= '0' && c <= '9') {
        digits++;
      } else if (c == '.' && !dot) {
        dot = true;
      } else {
        break;
      }
      i++;
    }
    if (digits == 0) {
      return Decoded.err(field, q, "invalid quantity " + GoText.quote(q));
    }
    String number = q.substring(0, i);
    if (number.endsWith(".")) {
      number = number.substring(0, number.length() - 1);
    }
    if (number.substring(digitsStart).startsWith(".")) {
      number = number.substring(0, digitsStart) + "0" + number.substring(digitsStart);
    }
    BigDecimal v = new BigDecimal(number);
    String suffix = q.substring(i);
    BigDecimal scaled = applySuffix(v, suffix);
    if (scaled == null) {
      return Decoded.err(field, q, "invalid quantity suffix in " + GoText.quote(q));
    }
    return Decoded.ok(scaled);
  }

  private static @Nullable BigDecimal applySuffix(BigDecimal v, String s) {
    return switch (s) {
      case "" -> v;
      case "n" -> v.scaleByPowerOfTen(-9);
      case "u" -> v.scaleByPowerOfTen(-6);
      case "m" -> v.scaleByPowerOfTen(-3);
      case "k" -> v.scaleByPowerOfTen(3);
      case "M" -> v.scaleByPowerOfTen(6);
      case "G" -> v.scaleByPowerOfTen(9);
      case "T" -> v.scaleByPowerOfTen(12);
      case "P" -> v.scaleByPowerOfTen(15);
      case "E" -> v.scaleByPowerOfTen(18);
      case "Ki" -> v.multiply(BigDecimal.valueOf(1L << 10));
      case "Mi" -> v.multiply(BigDecimal.valueOf(1L << 20));
      case "Gi" -> v.multiply(BigDecimal.valueOf(1L << 30));
      case "Ti" -> v.multiply(BigDecimal.valueOf(1L << 40));
      case "Pi" -> v.multiply(BigDecimal.valueOf(1L << 50));
      case "Ei" -> v.multiply(BigDecimal.valueOf(1L << 60));
      default -> exponent(v, s);
    };
  }

  /** A decimal exponent suffix such as {@code e3}, or null if {@code s} is not one. */
  private static @Nullable BigDecimal exponent(BigDecimal v, String s) {
    if (s.length() >= 2 && (s.charAt(0) == 'e' || s.charAt(0) == 'E')) {
      long e = GoText.parseInt32(s.substring(1));
      if (e == GoText.INVALID || Math.abs(e) > MAX_EXPONENT) {
        return null;
      }
      return v.scaleByPowerOfTen((int) e);
    }
    return null;
  }

  /** Parses a quantity that must be a whole number within int64 (Go's {@code Quantity.AsInt64}). */
  public static Decoded<Long> parseInt64(String field, String q) {
    return parse(field, q).flatMap(v -> toInt64(field, q, v));
  }

  private static Decoded<Long> toInt64(String field, String q, BigDecimal v) {
    if (v.compareTo(LONG_MIN) < 0 || v.compareTo(LONG_MAX) > 0) {
      return Decoded.err(field, q, "quantity " + GoText.quote(q) + " is out of range");
    }
    BigDecimal stripped = v.stripTrailingZeros();
    if (stripped.scale() > 0) {
      return Decoded.err(field, q, "quantity " + GoText.quote(q) + " is not a whole number");
    }
    BigInteger i = stripped.toBigIntegerExact();
    return Decoded.ok(i.longValue());
  }
}
