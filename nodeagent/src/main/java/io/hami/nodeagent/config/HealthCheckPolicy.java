package io.hami.nodeagent.config;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableSet;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which XID errors mark a GPU unhealthy (spec §7.3).
 *
 * @param enabled false when health checks are off ({@code DP_DISABLE_HEALTHCHECKS=all|xids})
 * @param ignoredXids XIDs that are not the device's fault (13, 31, 43, 45, 68, 109 by default)
 */
public record HealthCheckPolicy(boolean enabled, ImmutableSet<Long> ignoredXids) {
  public static final ImmutableSet<Long> DEFAULT_IGNORED =
      ImmutableSet.of(13L, 31L, 43L, 45L, 68L, 109L);

  public static HealthCheckPolicy defaults() {
    return new HealthCheckPolicy(true, DEFAULT_IGNORED);
  }

  public boolean marksUnhealthy(long xid) {
    return enabled && !ignoredXids.contains(xid);
  }

  /**
   * Reads {@code DP_DISABLE_HEALTHCHECKS} and {@code DP_ENABLE_HEALTHCHECKS}. Bad items are added
   * to {@code errors}.
   */
  public static HealthCheckPolicy fromEnv(
      @Nullable String disable, @Nullable String enable, List<String> errors) {
    Set<Long> ignored = new LinkedHashSet<>(DEFAULT_IGNORED);
    boolean enabled = true;
    for (String item : items(disable)) {
      String lower = item.toLowerCase(Locale.ROOT);
      if (lower.equals("all") || lower.equals("xids")) {
        enabled = false;
      } else {
        Long xid = xid(item, "DP_DISABLE_HEALTHCHECKS", errors);
        if (xid != null) {
          ignored.add(xid);
        }
      }
    }
    for (String item : items(enable)) {
      Long xid = xid(item, "DP_ENABLE_HEALTHCHECKS", errors);
      if (xid != null) {
        ignored.remove(xid);
      }
    }
    return new HealthCheckPolicy(enabled, ImmutableSet.copyOf(ignored));
  }

  private static List<String> items(@Nullable String value) {
    List<String> out = new ArrayList<>();
    if (value != null) {
      for (String s : Splitter.on(',').split(value)) {
        if (!s.isBlank()) {
          out.add(s.trim());
        }
      }
    }
    return out;
  }

  private static @Nullable Long xid(String item, String env, List<String> errors) {
    try {
      long v = Long.parseLong(item);
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    errors.add(env + ": '" + item + "' is not an XID number, 'all' or 'xids'");
    return null;
  }
}
