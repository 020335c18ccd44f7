package io.hami.plugins.fgd;

/**
 * The free share of one card in milli-GPU under HAMi's accounting: the smaller of its free memory
 * and free cores fractions, and nothing when its share slots are used up or it may not take new
 * work.
 */
public final class DeviceShare {

  private DeviceShare() {}

  /** Returns the free share of a device in 0..1000. */
  public static int freeMilli(
      boolean usable,
      int totalSlots,
      int usedSlots,
      int totalMemMiB,
      int usedMemMiB,
      int totalCores,
      int usedCores) {
    if (!usable || usedSlots >= totalSlots || totalMemMiB <= 0) {
      return 0;
    }
    long mem = Math.max(0, 1000L * (totalMemMiB - usedMemMiB) / totalMemMiB);
    long core = totalCores <= 0 ? 1000 : Math.max(0, 1000L * (totalCores - usedCores) / totalCores);
    return (int) Math.min(1000, Math.min(mem, core));
  }
}
