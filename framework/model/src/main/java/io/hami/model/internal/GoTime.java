package io.hami.model.internal;

import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;

/** Time layouts of the protocol, parsed by hand so that bad input costs no exception. */
public final class GoTime {

  private GoTime() {}

  /**
   * Go's {@code time.RFC3339} as {@code time.Parse} accepts it: {@code
   * yyyy-MM-ddTHH:mm:ss[.fraction](Z|±hh:mm)}.
   *
   * @return the time, or null when {@code s} does not match
   */
  public static @Nullable OffsetDateTime parseRfc3339(String s) {
    if (s.length() < 20 || s.length() > 40 || s.charAt(10) != 'T') {
      return null;
    }
    LocalDateTime local = dateTime(s, '-');
    if (local == null) {
      return null;
    }
    int i = 19;
    int nanos = 0;
    if (s.charAt(i) == '.' || s.charAt(i) == ',') {
      i++;
      int start = i;
      while (i < s.length() && isDigit(s.charAt(i))) {
        if (i - start < 9) {
          nanos = nanos * 10 + (s.charAt(i) - '0');
        }
        i++;
      }
      int n = i - start;
      if (n == 0) {
        return null;
      }
      for (int k = n; k < 9; k++) {
        nanos *= 10;
      }
    }
    if (i >= s.length()) {
      return null;
    }
    ZoneOffset offset;
    char z = s.charAt(i);
    if (z == 'Z' && i + 1 == s.length()) {
      offset = ZoneOffset.UTC;
    } else if ((z == '+' || z == '-') && i + 6 == s.length() && s.charAt(i + 3) == ':') {
      int hh = two(s, i + 1);
      int mm = two(s, i + 4);
      if (hh < 0 || mm < 0 || hh > 18 || mm > 59 || (hh == 18 && mm > 0)) {
        return null;
      }
      int secs = (hh * 3600 + mm * 60) * (z == '-' ? -1 : 1);
      offset = ZoneOffset.ofTotalSeconds(secs);
    } else {
      return null;
    }
    return OffsetDateTime.of(local.withNano(nanos), offset);
  }

  /**
   * {@code yyyy<sep>MM<sep>dd HH:mm:ss} at the start of {@code s} (the date/time separator is not
   * checked).
   *
   * @return the time, or null when it does not match or is not a real date
   */
  public static @Nullable LocalDateTime dateTime(String s, char sep) {
    if (s.length() < 19
        || s.charAt(4) != sep
        || s.charAt(7) != sep
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    int y = four(s, 0);
    int mo = two(s, 5);
    int d = two(s, 8);
    int h = two(s, 11);
    int mi = two(s, 14);
    int se = two(s, 17);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0
        || se > 59) {
      return null;
    }
    if (d > YearMonth.of(y, mo).lengthOfMonth()) {
      return null;
    }
    return LocalDateTime.of(y, mo, d, h, mi, se);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int two(String s, int i) {
    char a = s.charAt(i);
    char b = s.charAt(i + 1);
    return isDigit(a) && isDigit(b) ? (a - '0') * 10 + (b - '0') : -1;
  }

  private static int four(String s, int i) {
    int hi = two(s, i);
    int lo = two(s, i + 2);
    return hi < 0 || lo < 0 ? -1 : hi * 100 + lo;
  }
}
