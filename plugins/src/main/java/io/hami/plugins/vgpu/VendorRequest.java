package io.hami.plugins.vgpu;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What one container asks of one vendor's devices, after request derivation (protocol §5.2).
 *
 * @param vendor vendor keyword ({@code NVIDIA}, {@code DCU}, ...)
 * @param nums number of distinct devices
 * @param memMiB memory per device in MiB, 0 when given as a percentage
 * @param memPercent percent of each device's memory; {@link #PERCENT_UNSET} when not given
 * @param cores core percent per device (clamped to 100 by the fit)
 */
public record VendorRequest(String vendor, int nums, int memMiB, int memPercent, int cores) {

  /** The "not given" sentinel of the memory percentage (HAMi's 101). */
  public static final int PERCENT_UNSET = 101;

  public VendorRequest {
    requireNonNull(vendor, "vendor");
    checkArgument(nums > 0, "nums must be positive, was %s", nums);
    checkArgument(memMiB >= 0, "memMiB must not be negative, was %s", memMiB);
    checkArgument(cores >= 0, "cores must not be negative, was %s", cores);
  }

  /** Memory this request takes on a device of {@code totalMemMiB}, as the fit resolves it. */
  public int memOn(int totalMemMiB) {
    if (memMiB > 0) {
      return memMiB;
    }
    if (memPercent != PERCENT_UNSET) {
      return (int) ((long) totalMemMiB * memPercent / 100);
    }
    return 0;
  }

  /** Cores as the fit applies them: never more than one card. */
  public int clampedCores() {
    return Math.min(cores, 100);
  }

  /** Whether the request takes every core of a card, which makes it exclusive. */
  public boolean exclusive() {
    return clampedCores() >= 100;
  }
}
