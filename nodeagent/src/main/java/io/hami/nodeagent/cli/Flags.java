package io.hami.nodeagent.cli;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Flag value parsing that collects errors instead of stopping at the first one. */
final class Flags {
  private static final Pattern GO_DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

  private Flags() {}

  static @Nullable Integer integer(String flag, @Nullable String v, List<String> errors) {
    if (v == null) {
      return null;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      errors.add(flag + ": '" + v + "' is not an integer");
      return null;
    }
  }

  static @Nullable Long longValue(String flag, @Nullable String v, List<String> errors) {
    if (v == null) {
      return null;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      errors.add(flag + ": '" + v + "' is not an integer");
      return null;
    }
  }

  static @Nullable Double decimal(String flag, @Nullable String v, List<String> errors) {
    if (v == null) {
      return null;
    }
    try {
      double d = Double.parseDouble(v.trim());
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      errors.add(flag + ": '" + v + "' is not a number");
      return null;
    }
  }

  static @Nullable Boolean bool(String flag, @Nullable String v, List<String> errors) {
    if (v == null || v.isBlank()) {
      return null;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true", "1", "t", "yes" -> true;
      case "false", "0", "f", "no" -> false;
      default -> {
        errors.add(flag + ": '" + v + "' is not true or false");
        yield null;
      }
    };
  }

  /** Go-style ({@code 30s}, {@code 500ms}, {@code 1m30s}) or ISO-8601 ({@code PT30S}). */
  static @Nullable Duration duration(String flag, @Nullable String v, List<String> errors) {
    if (v == null) {
      return null;
    }
    String s = v.trim();
    if (s.startsWith("P") || s.startsWith("p")) {
      try {
        return Duration.parse(s);
      } catch (DateTimeParseException e) {
        errors.add(flag + ": '" + v + "' is not a duration");
        return null;
      }
    }
    Matcher m = GO_DURATION.matcher(s);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
              });
      end = m.end();
    }
    if (end == 0 || end != s.length()) {
      errors.add(flag + ": '" + v + "' is not a duration such as 30s, 500ms or 1m");
      return null;
    }
    return total;
  }

  /** {@code host:port} or {@code :port}; empty means disabled. */
  static @Nullable InetSocketAddress address(String flag, @Nullable String v, List<String> errors) {
    if (v == null || v.isBlank()) {
      return null;
    }
    int colon = v.lastIndexOf(':');
    if (colon < 0) {
      errors.add(flag + ": '" + v + "' is not [host]:port");
      return null;
    }
    String host = v.substring(0, colon);
    Integer port = integer(flag, v.substring(colon + 1), errors);
    if (port == null) {
      return null;
    }
    if (port < 0 || port > 65535) {
      errors.add(flag + ": port " + port + " is not in 0..65535");
      return null;
    }
    return host.isEmpty()
        ? new InetSocketAddress(port)
        : InetSocketAddress.createUnresolved(host, port);
  }
}
