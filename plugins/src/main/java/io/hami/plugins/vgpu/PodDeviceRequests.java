package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.hami.framework.api.StateData;

/**
 * The pod's derived device requests and placement options, written by {@code vgpu} PreFilter under
 * {@link VgpuPlugin#REQUESTS} for the other plugins of the cycle (Filter, Score, Reserve of {@code
 * vgpu}, {@code numa}, {@code topology} and any placement plugin). Immutable.
 */
public record PodDeviceRequests(PodRequests requests, PodGpuOptions options) implements StateData {
  public PodDeviceRequests {
    requireNonNull(requests, "requests");
    requireNonNull(options, "options");
  }
}
