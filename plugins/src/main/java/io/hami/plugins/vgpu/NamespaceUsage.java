package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableMap;
import java.util.HashMap;
import java.util.Map;

/**
 * Committed memory and cores of one namespace's pods, summed over their devices per vendor (quotas
 * limit each vendor's own resources).
 */
public record NamespaceUsage(ImmutableMap<String, Totals> byVendor) {
  public static final NamespaceUsage NONE = new NamespaceUsage(ImmutableMap.of());

  /** One vendor's totals. */
  public record Totals(long memMiB, long cores) {}

  public long memMiB(String vendor) {
    Totals t = byVendor.get(vendor);
    return t == null ? 0 : t.memMiB();
  }

  public long cores(String vendor) {
    Totals t = byVendor.get(vendor);
    return t == null ? 0 : t.cores();
  }

  NamespaceUsage plus(String vendor, long mem, long cores) {
    Map<String, Totals> m = new HashMap<>(byVendor);
    Totals t = m.getOrDefault(vendor, new Totals(0, 0));
    Totals n = new Totals(t.memMiB() + mem, t.cores() + cores);
    if (n.memMiB() == 0 && n.cores() == 0) {
      m.remove(vendor);
    } else {
      m.put(vendor, n);
    }
    return new NamespaceUsage(ImmutableMap.copyOf(m));
  }
}
