package io.hami.cmd.scheduler.ui;

import java.net.InetAddress;
import java.util.Locale;

/**
 * Who may read the cluster view. The scheduler's HTTP port has no TLS or authentication of its own
 * (its metrics are meant for a scraper inside the cluster), so the view answers only clients on the
 * same host unless told otherwise.
 */
public enum ViewAccess {
  /** Only loopback clients; others get 403. The default. */
  LOCALHOST,
  /** Every client that reaches the port. */
  ANY,
  /** Not served at all. */
  OFF;

  /** Whether a client at {@code remote} may read the view. */
  boolean admits(InetAddress remote) {
    return switch (this) {
      case ANY -> true;
      case LOCALHOST -> remote.isLoopbackAddress();
      case OFF -> false;
    };
  }

  /** Parses {@code localhost}, {@code any} or {@code off}, in any case. */
  public static ViewAccess parse(String value) {
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "localhost" -> LOCALHOST;
      case "any" -> ANY;
      case "off" -> OFF;
      default ->
          throw new IllegalArgumentException(
              "invalid value \"" + value + "\": want localhost, any or off");
    };
  }
}
