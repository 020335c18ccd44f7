package io.hami.plugins.vgpu;

import java.util.Locale;

/** How nodes are ranked by their GPU usage ({@code hami.io/node-scheduler-policy}). */
public enum NodePolicy {
  /** Prefer the busiest node, keeping idle nodes free for large pods. */
  BINPACK,
  /** Prefer the least used node. */
  SPREAD;

  /** HAMi's reading: {@code spread} is spread, anything else is binpack. */
  public static NodePolicy parse(String value) {
    return value.trim().toLowerCase(Locale.ROOT).equals("spread") ? SPREAD : BINPACK;
  }

  /** Whether {@code value} names a policy; {@link #parse} reads any other value as binpack. */
  public static boolean isKnown(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    return v.equals("spread") || v.equals("binpack");
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
