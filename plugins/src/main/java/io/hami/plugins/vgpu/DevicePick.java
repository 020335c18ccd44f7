package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.hami.model.device.MigPlacement;
import org.jspecify.annotations.Nullable;

/**
 * One device chosen for one container: what goes into the pod's device annotations ({@code
 * <uuid>,<vendor>,<mem MiB>,<cores>}), plus the dynamic MIG instance when the device is in mig
 * mode.
 *
 * @param mig the MIG profile and placement chosen on the device, or null for a shared device
 */
public record DevicePick(String id, String vendor, int memMiB, int cores, @Nullable Mig mig) {
  public DevicePick {
    requireNonNull(id, "id");
    requireNonNull(vendor, "vendor");
  }

  /** A pick on a shared (non-MIG) device. */
  public DevicePick(String id, String vendor, int memMiB, int cores) {
    this(id, vendor, memMiB, cores, null);
  }

  /**
   * A dynamic MIG instance.
   *
   * @param profile profile name, e.g. {@code 1g.10gb}
   * @param placement where on the GPU the instance goes
   */
  public record Mig(String profile, MigPlacement placement) {
    public Mig {
      requireNonNull(profile, "profile");
      requireNonNull(placement, "placement");
    }
  }
}
