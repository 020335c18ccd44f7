package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of placing a pod on one node: the devices per container, or the reasons it does not
 * fit.
 *
 * @param node node name
 * @param containers per container (init first), the picks; empty on failure
 * @param usage the collapsed usage the pod adds to the node; empty on failure
 * @param reasons why it did not fit, or null on success
 */
public record Placement(
    String node,
    ImmutableList<ImmutableList<DevicePick>> containers,
    PodUsage usage,
    @Nullable FitReasons reasons) {

  public Placement {
    requireNonNull(node, "node");
    requireNonNull(containers, "containers");
    requireNonNull(usage, "usage");
  }

  static Placement failed(String node, FitReasons reasons) {
    return new Placement(node, ImmutableList.of(), PodUsage.EMPTY, reasons);
  }

  public boolean fits() {
    return reasons == null;
  }
}
