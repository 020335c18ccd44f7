package io.hami.plugins.vgpu;

/**
 * A namespace's GPU quota against what its pods already hold (protocol §6.8), as a {@link
 * DeviceFitter.QuotaCheck}. Only NVIDIA requests are limited: the tracked resources are NVIDIA's.
 *
 * @param memLimit {@code limits.<memory resource>}, or -1 when absent
 * @param coreLimit {@code limits.<core resource>}, or -1 when absent
 * @param usedMemMiB committed memory of the namespace's pods
 * @param usedCores committed cores of the namespace's pods
 * @param memoryFactor multiplier of the memory resource
 */
public record NamespaceQuota(long memLimit, long coreLimit, long usedMemMiB, long usedCores, int memoryFactor)
    implements DeviceFitter.QuotaCheck {

  static final String VENDOR = "NVIDIA";

  @Override
  public boolean fits(String vendor, int memMiB, int cores) {
    if (!VENDOR.equals(vendor)) {
      return true;
    }
    if (memLimit >= 0 && usedMemMiB + memMiB > memLimit * memoryFactor) {
      return false;
    }
    return coreLimit < 0 || usedCores + cores <= coreLimit;
  }

  /** Whether either limit is set. */
  public boolean limited() {
    return memLimit >= 0 || coreLimit >= 0;
  }
}
