package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An immutable view of one node's devices with their committed usage, as {@link DeviceUsageIndex}
 * publishes it. A new view replaces the old one on every change to the node or to a pod on it;
 * readers never see a half-applied change.
 *
 * @param node node name
 * @param devices every registered device of every vendor, in registration order
 * @param pairs topology pair scores
 * @param invalid why the node's device annotations could not be read (the node then offers no
 *     devices), or null
 * @param version increases with every change of this node's view
 */
public record NodeDevices(
    String node,
    ImmutableList<DeviceUsage> devices,
    PairScores pairs,
    @Nullable String invalid,
    long version,
    float nodeScore) {

  /**
   * @param nodeScore node score before placement (protocol §6.7), in [0, 30]; computed once per
   *     view because every Score call reads it
   */
  public NodeDevices {
    requireNonNull(node, "node");
    requireNonNull(devices, "devices");
    requireNonNull(pairs, "pairs");
  }

  public NodeDevices(
      String node,
      ImmutableList<DeviceUsage> devices,
      PairScores pairs,
      @Nullable String invalid,
      long version) {
    this(node, devices, pairs, invalid, version, DeviceScores.node(devices));
  }

  /** A node with devices and no topology. */
  public static NodeDevices of(String node, List<DeviceUsage> devices) {
    return new NodeDevices(node, ImmutableList.copyOf(devices), PairScores.NONE, null, 0);
  }

  /** The device with this id, or null. */
  public @Nullable DeviceUsage device(String id) {
    for (DeviceUsage d : devices) {
      if (d.id().equals(id)) {
        return d;
      }
    }
    return null;
  }

  /** Whether some device is over-committed (never true for a consistent cluster). */
  public boolean overCommitted() {
    for (DeviceUsage d : devices) {
      if (d.overCommitted()) {
        return true;
      }
    }
    return false;
  }
}
