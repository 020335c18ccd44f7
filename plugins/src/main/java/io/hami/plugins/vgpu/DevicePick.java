package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

/**
 * One device chosen for one container: what goes into the pod's device annotations ({@code
 * <uuid>,<vendor>,<mem MiB>,<cores>}).
 */
public record DevicePick(String id, String vendor, int memMiB, int cores) {
  public DevicePick {
    requireNonNull(id, "id");
    requireNonNull(vendor, "vendor");
  }
}
