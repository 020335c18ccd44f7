package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.hami.framework.api.StateData;
import org.jspecify.annotations.Nullable;

/**
 * The pod's derived device requests and placement options, written by {@code vgpu} PreFilter under
 * {@link VgpuPlugin#REQUESTS} for the other plugins of the cycle (Filter, Score, Reserve of {@code
 * vgpu}, {@code numa}, {@code topology} and any placement plugin). Immutable: {@code vgpu}'s AddPod
 * and RemovePod write a new value carrying a new overlay into the state they change, so that copies
 * of a cycle state share nothing they could change.
 *
 * @param overlay a preemption dry run's changes to device usage, and the pod's own earlier
 *     accounting that the cycle leaves out (see {@link UsageOverlay}); null in the scheduling cycle
 *     of a pod the index counts nothing for. Never changed once written
 */
public record PodDeviceRequests(
    PodRequests requests, PodGpuOptions options, @Nullable UsageOverlay overlay)
    implements StateData {
  public PodDeviceRequests {
    requireNonNull(requests, "requests");
    requireNonNull(options, "options");
  }

  public PodDeviceRequests(PodRequests requests, PodGpuOptions options) {
    this(requests, options, null);
  }

  /** These requests under another dry-run overlay. */
  PodDeviceRequests withOverlay(UsageOverlay next) {
    return new PodDeviceRequests(requests, options, next);
  }
}
