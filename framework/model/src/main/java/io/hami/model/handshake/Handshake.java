package io.hami.model.handshake;

import io.hami.model.internal.GoTime;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.ResolverStyle;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A value of a node handshake annotation. Every string is some handshake, so {@link #parse} cannot
 * fail.
 *
 * <ul>
 *   <li>{@link Requesting}: written by the scheduler, {@code Requesting_<yyyy-MM-dd HH:mm:ss>} in
 *       its local time.
 *   <li>{@link Deleted}: written on cleanup by v2.4–v2.9 schedulers; v2.10 removes the key instead.
 *   <li>{@link Reported}: anything else, e.g. {@code Reported 2024-01-23 04:30:04.43 +0000 UTC
 *       m=+1.7} from an NVIDIA plugin up to v2.7 or {@code Reported_<time>} from other vendor
 *       plugins.
 * </ul>
 */
public sealed interface Handshake
    permits Handshake.Requesting, Handshake.Deleted, Handshake.Reported {

  /** The scheduler asked the node to report; {@code time} is empty when absent or unparsable. */
  record Requesting(Optional<LocalDateTime> time) implements Handshake {}

  /** The scheduler cleaned the node up (legacy). */
  record Deleted(Optional<LocalDateTime> time) implements Handshake {}

  /** The node reported itself. */
  record Reported(String raw) implements Handshake {}

  /** Layout since v2.5. */
  DateTimeFormatter LAYOUT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss").withResolverStyle(ResolverStyle.STRICT);

  /**
   * Classifies a value: contains {@code Requesting} → requesting, {@code Deleted} → deleted, else
   * reported.
   */
  static Handshake parse(String value) {
    if (value.contains("Requesting")) {
      return new Requesting(timeAfterUnderscore(value));
    }
    if (value.contains("Deleted")) {
      return new Deleted(timeAfterUnderscore(value));
    }
    return new Reported(value);
  }

  private static Optional<LocalDateTime> timeAfterUnderscore(String value) {
    int u = value.indexOf('_');
    if (u < 0) {
      return Optional.empty();
    }
    return Optional.ofNullable(parseTime(value.substring(u + 1)));
  }

  /**
   * Parses {@code yyyy-MM-dd HH:mm:ss}, or the v2.4 dotted date {@code yyyy.MM.dd HH:mm:ss}; null
   * otherwise.
   */
  static @Nullable LocalDateTime parseTime(String s) {
    if (s.length() != 19 || s.charAt(10) != ' ') {
      return null;
    }
    return GoTime.dateTime(s, s.charAt(4) == '.' ? '.' : '-');
  }

  /** {@code Requesting_<time>} for the scheduler's local time {@code now}. */
  static String requesting(LocalDateTime now) {
    return "Requesting_" + LAYOUT.format(now);
  }

  /** {@code Deleted_<time>} (only for talking to v2.4–v2.9 plugins). */
  static String deleted(LocalDateTime now) {
    return "Deleted_" + LAYOUT.format(now);
  }

  /** {@code Reported_<time>}, as vendor plugins write it. */
  static String reported(LocalDateTime now) {
    return "Reported_" + LAYOUT.format(now);
  }
}
