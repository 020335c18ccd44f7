package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import io.hami.model.vendor.VendorKeys;

/** The vendors the scheduler understands. */
public final class GpuVendors {
  private GpuVendors() {}

  /** Hygon DCU: colon-form register, cores default to a whole card. */
  public static final GpuVendor HYGON =
      new GpuVendor(VendorKeys.HYGON, new RequestRule(ResourceNames.HYGON, "DCU", 1, 0, 100), false);

  /** NVIDIA with the given request rule. */
  public static GpuVendor nvidia(RequestRule rule) {
    return new GpuVendor(VendorKeys.NVIDIA, rule, true);
  }

  /** Every vendor whose annotations are read for usage accounting. */
  public static ImmutableList<GpuVendor> accounted() {
    return ImmutableList.of(nvidia(RequestRule.NVIDIA_DEFAULTS), HYGON);
  }
}
