package io.hami.model.internal;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Text parsing with the acceptance rules of Go's {@code strconv}, without exceptions. */
public final class GoText {

  /** Returned by the integer parsers for input they reject; outside every range they accept. */
  public static final long INVALID = Long.MIN_VALUE;

  private GoText() {}

  /**
   * Go {@code strconv.ParseInt(s, 10, 32)}: optional sign then decimal digits; {@link #INVALID}
   * otherwise.
   */
  public static long parseInt32(String s) {
    return parseSigned(s, Integer.MIN_VALUE, Integer.MAX_VALUE);
  }

  /**
   * Go {@code strconv.ParseInt(s, 10, 64)}, except that {@code Long.MIN_VALUE} itself is rejected.
   */
  public static long parseInt64(String s) {
    return parseSigned(s, Long.MIN_VALUE + 1, Long.MAX_VALUE);
  }

  private static long parseSigned(String s, long min, long max) {
    int n = s.length();
    if (n == 0) {
      return INVALID;
    }
    int i = 0;
    boolean negative = false;
    char c0 = s.charAt(0);
    if (c0 == '+' || c0 == '-') {
      negative = c0 == '-';
      i = 1;
      if (n == 1) {
        return INVALID;
      }
    }
    long acc = 0;
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return INVALID;
      }
      int d = c - '0';
      // accumulate negatively so that the most negative value fits
      if (acc < (Long.MIN_VALUE + d) / 10) {
        return INVALID;
      }
      acc = acc * 10 - d;
    }
    long v = negative ? acc : -acc;
    if (!negative && acc == Long.MIN_VALUE) {
      return INVALID;
    }
    return v < min || v > max ? INVALID : v;
  }

  /** Go {@code strconv.ParseBool}: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. */
  public static @Nullable Boolean parseBool(String s) {
    return switch (s) {
      case "1", "t", "T", "TRUE", "true", "True" -> Boolean.TRUE;
      case "0", "f", "F", "FALSE", "false", "False" -> Boolean.FALSE;
      default -> null;
    };
  }

  /** Splits on a single character, keeping empty pieces (Go {@code strings.Split}). */
  public static List<String> split(String s, char sep) {
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == sep) {
        out.add(s.substring(start, i));
        start = i + 1;
      }
    }
    out.add(s.substring(start));
    return out;
  }

  /** Splits a comma list, trims the items and drops empty ones. */
  public static List<String> commaList(String s) {
    List<String> out = new ArrayList<>();
    for (String item : split(s, ',')) {
      String t = item.trim();
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
    return out;
  }

  /** Quotes a string for error messages, like Go's {@code %q} for printable text. */
  public static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    int limit = Math.min(s.length(), 256);
    for (int i = 0; i < limit; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\x%02x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    if (limit < s.length()) {
      b.append("...");
    }
    return b.append('"').toString();
  }
}
