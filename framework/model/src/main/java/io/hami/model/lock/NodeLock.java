package io.hami.model.lock;

import io.hami.model.Decoded;
import io.hami.model.internal.GoText;
import io.hami.model.internal.GoTime;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.ResolverStyle;
import java.util.List;

/**
 * A node lock value: {@code <RFC3339 time>,<namespace>,<pod>} (v2.4+), or the legacy time-only form
 * (2.3, and Cambricon's lock).
 *
 * @param time when the lock was taken, with the writer's offset
 * @param namespace holder namespace; empty for the legacy form
 * @param name holder pod name; empty for the legacy form
 */
public record NodeLock(OffsetDateTime time, String namespace, String name) {

  /** Default lock timeout ({@code --node-lock-timeout}). */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

  /** Timeout of Cambricon's {@code cambricon.com/dsmlu.lock}. */
  public static final Duration CAMBRICON_TIMEOUT = Duration.ofMinutes(2);

  private static final DateTimeFormatter WRITE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX")
          .withResolverStyle(ResolverStyle.STRICT);

  /** A lock held by a pod; the time keeps its offset and loses sub-second precision on the wire. */
  public static NodeLock of(OffsetDateTime time, String namespace, String name) {
    return new NodeLock(time, namespace, name);
  }

  /** A time-only lock (legacy form, Cambricon lock). */
  public static NodeLock timeOnly(OffsetDateTime time) {
    return new NodeLock(time, "", "");
  }

  /** Whether this is the time-only form, which names no holder. */
  public boolean isTimeOnly() {
    return namespace.isEmpty() && name.isEmpty();
  }

  /** The annotation value. */
  public String encode() {
    String t = WRITE.format(time);
    return isTimeOnly() ? t : t + "," + namespace + "," + name;
  }

  /** Parses a value: no {@code ,} → time only; otherwise exactly three parts. */
  public static Decoded<NodeLock> decode(String value) {
    if (value.indexOf(',') < 0) {
      return parseTime(value).map(NodeLock::timeOnly);
    }
    List<String> parts = GoText.split(value, ',');
    if (parts.size() != 3) {
      return Decoded.err(
          "", value, "node lock value must be <time>,<namespace>,<pod>: " + GoText.quote(value));
    }
    return parseTime(parts.get(0)).map(t -> new NodeLock(t, parts.get(1), parts.get(2)));
  }

  /** Parses an RFC 3339 time as Go's {@code time.RFC3339} layout accepts it. */
  public static Decoded<OffsetDateTime> parseTime(String s) {
    OffsetDateTime t = GoTime.parseRfc3339(s);
    return t == null
        ? Decoded.err("time", s, "invalid RFC3339 time " + GoText.quote(s))
        : Decoded.ok(t);
  }

  /** Whether {@code namespace/name} holds this lock. */
  public boolean isHeldBy(String ns, String podName) {
    return !isTimeOnly() && namespace.equals(ns) && name.equals(podName);
  }

  /** Whether the lock is older than {@code timeout} at {@code now} (strictly). */
  public boolean isExpired(Instant now, Duration timeout) {
    return Duration.between(time.toInstant(), now).compareTo(timeout) > 0;
  }

  /**
   * The release owner check on a raw value: a value naming another holder must be left alone; a
   * time-only or own value may be removed.
   */
  public static boolean releasableBy(String rawValue, String ns, String podName) {
    return rawValue.indexOf(',') < 0 || rawValue.endsWith("," + ns + "," + podName);
  }

  /** {@code ns + separator + name}, as the reference implementation keys pods. */
  public static String podKey(String ns, String podName, String separator) {
    return ns + separator + podName;
  }
}
