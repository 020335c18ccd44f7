package io.hami.plugins.vgpu;

import java.util.List;

/**
 * The device and node score formulas of protocol §6.7, in float arithmetic as HAMi computes them.
 */
public final class DeviceScores {
  private DeviceScores() {}

  /**
   * Device score used to order a node's devices for one container:
   *
   * <pre>10 * (wSlot*(r+Used)/Count + wCore*(c+Usedcores)/Totalcore + wMem*(m+Usedmem)/Totalmem)
   * </pre>
   *
   * where r, c and m sum the container's requests that {@linkplain #matches match} the device.
   *
   * @param byVendor when true a request matches any device of its vendor; when false only a device
   *     whose model string equals the request's type, as HAMi does (so in practice no request
   *     counts, protocol §11 trap 10)
   */
  public static float device(
      DeviceUsage d, List<VendorRequest> requests, ScoringWeights w, boolean byVendor) {
    if (d.totalSlots() == 0 || d.totalCores() == 0 || d.totalMemMiB() == 0) {
      return 0f;
    }
    int r = 0;
    long c = 0;
    long m = 0;
    for (int i = 0; i < requests.size(); i++) {
      VendorRequest q = requests.get(i);
      if (matches(q, d, byVendor)) {
        r++;
        c += q.cores();
        m +=
            (q.memPercent() != 0 && q.memPercent() != VendorRequest.PERCENT_UNSET)
                ? (long) d.totalMemMiB() * q.memPercent() / 100
                : q.memMiB();
      }
    }
    float slot = (float) (r + d.usedSlots()) / d.totalSlots();
    float core = (float) (c + d.usedCores()) / d.totalCores();
    float mem = (float) (m + d.usedMemMiB()) / d.totalMemMiB();
    return 10f * (w.slot() * slot + w.core() * core + w.memory() * mem);
  }

  /** Whether a request counts toward a device's score. */
  static boolean matches(VendorRequest q, DeviceUsage d, boolean byVendor) {
    if (q.vendor().equals(d.type())) {
      return true;
    }
    // The index assigns each device the vendor whose register annotation listed it.
    return byVendor && d.vendor().equals(q.vendor());
  }

  /**
   * Node score on the usage before the pod is placed: {@code 10 * (ΣUsed/ΣCount +
   * ΣUsedcores/ΣTotalcore + ΣUsedmem/ΣTotalmem)}, 0 when any total is 0. Ranges over [0, 30] on a
   * node that is not over-committed.
   */
  public static float node(List<DeviceUsage> devices) {
    long used = 0;
    long count = 0;
    long usedCores = 0;
    long cores = 0;
    long usedMem = 0;
    long mem = 0;
    for (int i = 0; i < devices.size(); i++) {
      DeviceUsage d = devices.get(i);
      used += d.usedSlots();
      count += d.totalSlots();
      usedCores += d.usedCores();
      cores += d.totalCores();
      usedMem += d.usedMemMiB();
      mem += d.totalMemMiB();
    }
    return node(used, count, usedCores, cores, usedMem, mem);
  }

  /** Node score from the sums. */
  public static float node(
      long used, long count, long usedCores, long cores, long usedMem, long mem) {
    if (count == 0 || cores == 0 || mem == 0) {
      return 0f;
    }
    return 10f * ((float) used / count + (float) usedCores / cores + (float) usedMem / mem);
  }
}
