package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A pod's namespace GPU quotas (protocol §6.8) against what its namespace holds on each vendor, as
 * the quota check of the device fit.
 */
final class NamespaceQuotaChecks {

  private final @Nullable NamespaceQuotas quotas;
  private final DeviceUsageIndex index;
  private final Map<String, Integer> memoryFactors;

  /**
   * @param quotas the namespaces' quotas, or null for no quota checks
   */
  NamespaceQuotaChecks(
      @Nullable NamespaceQuotas quotas, DeviceUsageIndex index, List<GpuVendor> vendors) {
    this.quotas = quotas;
    this.index = index;
    Map<String, Integer> factors = new HashMap<>();
    for (GpuVendor v : vendors) {
      factors.put(v.word(), v.memoryFactor());
    }
    this.memoryFactors = Map.copyOf(factors);
  }

  /** The pod namespace's quotas against its usage, or {@link DeviceFitter.QuotaCheck#NONE}. */
  DeviceFitter.QuotaCheck of(Pod pod) {
    return of(pod, null);
  }

  /**
   * {@link #of(Pod)} with the namespace's usage changed by a preemption dry run's overlay, when not
   * null.
   */
  DeviceFitter.QuotaCheck of(Pod pod, @Nullable UsageOverlay overlay) {
    String ns = pod.getMetadata().getNamespace();
    if (quotas == null || ns == null) {
      return DeviceFitter.QuotaCheck.NONE;
    }
    Map<String, NamespaceQuotas.Limits> limits = quotas.all(ns);
    if (limits.isEmpty()) {
      return DeviceFitter.QuotaCheck.NONE;
    }
    NamespaceUsage u =
        overlay == null ? index.namespace(ns) : overlay.namespace(ns, index.namespace(ns));
    ImmutableMap.Builder<String, NamespaceQuota.VendorQuota> b = ImmutableMap.builder();
    limits.forEach(
        (vendor, l) ->
            b.put(
                vendor,
                new NamespaceQuota.VendorQuota(
                    l.mem(),
                    l.cores(),
                    u.memMiB(vendor),
                    u.cores(vendor),
                    memoryFactors.getOrDefault(vendor, 1))));
    return new NamespaceQuota(b.buildOrThrow());
  }
}
