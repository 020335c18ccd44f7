package io.hami.plugins.vgpu;

import java.util.HashSet;
import java.util.Set;

/**
 * The vendors whose devices on one node are marked unhealthy on top of what the node's annotations
 * say, for health that only time reveals (an unanswered handshake). Not thread-safe: the owning
 * index guards it with its lock.
 */
final class VendorHealthMarks {

  private Set<String> unhealthy = Set.of();

  /** Marks the vendor healthy or not; false when that was already so. */
  boolean set(String vendor, boolean healthy) {
    if (unhealthy.contains(vendor) != healthy) {
      return false;
    }
    Set<String> next = new HashSet<>(unhealthy);
    if (healthy) {
      next.remove(vendor);
    } else {
      next.add(vendor);
    }
    unhealthy = Set.copyOf(next);
    return true;
  }

  boolean unhealthy(String vendor) {
    return unhealthy.contains(vendor);
  }

  /** {@code device}, offered as unhealthy when its vendor is marked so. */
  DeviceUsage apply(DeviceUsage device) {
    if (!unhealthy.isEmpty() && device.healthy() && unhealthy.contains(device.vendor())) {
      return device.withState(false, device.cordoned());
    }
    return device;
  }
}
