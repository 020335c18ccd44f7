package io.hami.plugins.vgpu;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.EventRecorder;

/**
 * Opens the plugin's package-private readers to the HAMi conformance tests: how the vGPU plugin
 * reads a pod's options, and its per-device type check.
 */
public final class ConformanceProbe {
  private ConformanceProbe() {}

  /**
   * The options the plugin reads from {@code pod}, with {@code defaultGpuPolicy} as the profile's
   * GPU policy.
   *
   * @throws IllegalArgumentException where the plugin refuses the pod; the message names why
   */
  public static PodGpuOptions optionsOf(Pod pod, String defaultGpuPolicy) {
    VgpuArgs args = VgpuArgs.DEFAULTS.withGpuSchedulerPolicy(defaultGpuPolicy);
    try {
      return new PodRequestReader(args, new PodAnnotationWarnings(EventRecorder.discarding()))
          .optionsOf(pod);
    } catch (PodRequestReader.InvalidPodException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * Whether the fit's type check ({@code CardTypeMismatch}) lets a healthy, idle NVIDIA device of
   * model {@code type} in mode {@code mode} take one device of vendor {@code reqVendor}.
   */
  public static boolean typeFits(PodGpuOptions opts, String reqVendor, String type, String mode) {
    DeviceUsage device =
        new DeviceUsage("GPU-0", 0, "NVIDIA", type, 0, mode, true, false, 10, 0, 16384, 0, 100, 0);
    FitReason r =
        DeviceFitter.check(
            device,
            new VendorRequest(reqVendor, 1, 1024, 101, 0),
            0,
            opts.filter(),
            opts.gpuPolicy(),
            DeviceFitter.QuotaCheck.NONE);
    return r != FitReason.CARD_TYPE_MISMATCH;
  }
}
