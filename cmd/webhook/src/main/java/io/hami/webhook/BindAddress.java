package io.hami.webhook;

import java.net.InetSocketAddress;

/** Parses listen addresses written as {@code host:port}, {@code :port} or {@code [v6]:port}. */
public final class BindAddress {

  private BindAddress() {}

  /**
   * Parses an address; an empty host means every interface.
   *
   * @throws IllegalArgumentException naming the value when it is not an address
   */
  public static InetSocketAddress parse(String value) {
    String v = value.trim();
    int colon = v.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException(
          "address \"" + value + "\" is not host:port (for example :9443 or 0.0.0.0:9443)");
    }
    String host = v.substring(0, colon);
    String portText = v.substring(colon + 1);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw new IllegalArgumentException(
          "address \"" + value + "\": write IPv6 hosts in brackets, e.g. [::1]:9443");
    }
    int port;
    try {
      port = Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "address \"" + value + "\": port \"" + portText + "\" is not a number", e);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(
          "address \"" + value + "\": port " + port + " is outside 0-65535");
    }
    if (host.isEmpty() || host.equals("0.0.0.0")) {
      return new InetSocketAddress(port);
    }
    InetSocketAddress address = new InetSocketAddress(host, port);
    if (address.isUnresolved()) {
      throw new IllegalArgumentException(
          "address \"" + value + "\": host \"" + host + "\" cannot be resolved");
    }
    return address;
  }
}
