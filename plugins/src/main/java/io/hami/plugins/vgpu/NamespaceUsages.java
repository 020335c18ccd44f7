package io.hami.plugins.vgpu;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each namespace's pods hold, for quotas (protocol §6.8). Written under the index's lock, read
 * without one.
 */
final class NamespaceUsages {
  private final ConcurrentHashMap<String, NamespaceUsage> namespaces = new ConcurrentHashMap<>();

  NamespaceUsage get(String name) {
    return namespaces.getOrDefault(name, NamespaceUsage.NONE);
  }

  /** Counts ({@code sign} +1) or uncounts (-1) what a pod of {@code namespace} holds. */
  void apply(String namespace, PodUsage usage, int sign) {
    Map<String, long[]> byVendor = new HashMap<>(2);
    for (PodUsage.Usage u : usage.byDevice().values()) {
      long[] t = byVendor.computeIfAbsent(u.vendor(), k -> new long[2]);
      t[0] += u.memMiB();
      t[1] += u.cores();
    }
    namespaces.compute(
        namespace,
        (k, v) -> {
          NamespaceUsage n = v == null ? NamespaceUsage.NONE : v;
          for (Map.Entry<String, long[]> t : byVendor.entrySet()) {
            n = n.plus(t.getKey(), sign * t.getValue()[0], sign * t.getValue()[1]);
          }
          return n.byVendor().isEmpty() ? null : n;
        });
  }
}
