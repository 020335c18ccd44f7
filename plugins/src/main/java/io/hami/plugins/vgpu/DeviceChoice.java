package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.hami.framework.api.StateData;
import java.util.List;

/**
 * Devices another plugin prefers for the pod on one node: per container (init first, one entry per
 * container as in {@link PodRequests}), the device UUIDs to use. Set under {@link
 * VgpuPlugin#PREFERRED_DEVICES} by a placement plugin that runs before {@code vgpu} in Reserve;
 * {@code vgpu} honours it when the pod is reserved on {@link #node()} and every listed device
 * passes the fit, and otherwise places by its own GPU policy.
 */
public record DeviceChoice(String node, ImmutableList<ImmutableList<String>> containers)
    implements StateData {
  public DeviceChoice {
    requireNonNull(node, "node");
    requireNonNull(containers, "containers");
  }

  public static DeviceChoice of(String node, List<? extends List<String>> containers) {
    ImmutableList.Builder<ImmutableList<String>> b = ImmutableList.builder();
    for (List<String> c : containers) {
      b.add(ImmutableList.copyOf(c));
    }
    return new DeviceChoice(node, b.build());
  }
}
