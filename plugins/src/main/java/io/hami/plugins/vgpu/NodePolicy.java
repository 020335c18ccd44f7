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

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
