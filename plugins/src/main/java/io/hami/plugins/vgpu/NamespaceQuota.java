package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableMap;

/**
 * A namespace's GPU quotas against what its pods already hold (protocol §6.8), as a {@link
 * DeviceFitter.QuotaCheck}: each vendor's requests are held against that vendor's own limits and
 * usage, so NVIDIA memory never counts toward a Hygon or Cambricon limit.
 *
 * @param byVendor the limited vendors; a vendor not listed is not limited
 */
public record NamespaceQuota(ImmutableMap<String, VendorQuota> byVendor)
    implements DeviceFitter.QuotaCheck {

  /**
   * One vendor's quota.
   *
   * @param memLimit {@code limits.<memory resource>} in the resource's units, or -1 when absent
   * @param coreLimit {@code limits.<core resource>}, or -1 when absent
   * @param usedMemMiB committed memory of the namespace's pods on this vendor's devices
   * @param usedCores committed cores of the namespace's pods on this vendor's devices
   * @param memoryFactor MiB per unit of the memory resource
   */
  public record VendorQuota(
      long memLimit, long coreLimit, long usedMemMiB, long usedCores, int memoryFactor) {
    boolean fits(int memMiB, int cores) {
      if (memLimit >= 0 && usedMemMiB + memMiB > memLimit * memoryFactor) {
        return false;
      }
      return coreLimit < 0 || usedCores + cores <= coreLimit;
    }
  }

  /** A quota on one vendor only. */
  public static NamespaceQuota of(String vendor, VendorQuota q) {
    return new NamespaceQuota(ImmutableMap.of(vendor, q));
  }

  @Override
  public boolean fits(String vendor, int memMiB, int cores) {
    VendorQuota q = byVendor.get(vendor);
    return q == null || q.fits(memMiB, cores);
  }
}
