package io.hami.plugins;

import io.hami.framework.api.PluginRegistration;
import io.hami.plugins.nodelock.NodeLockPlugin;
import io.hami.plugins.numa.NumaPlugin;
import io.hami.plugins.placement.FgdPlugin;
import io.hami.plugins.placement.PlacementPlugin;
import io.hami.plugins.topology.TopologyPlugin;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.util.List;

/**
 * The GPU plugins of this module, for the scheduler's registry: {@code
 * GpuPlugins.registrations().forEach(registry::register)}.
 *
 * <p>In a profile, order them {@code topology}, {@code nodelock}, {@code vgpu}, {@code numa}: the
 * topology plugin must reserve before {@code vgpu} so that its preferred devices are honoured, and
 * the node lock must be taken in PreBind before {@code vgpu} writes the pod's annotations.
 */
public final class GpuPlugins {
  private GpuPlugins() {}

  /** The registrations of one scheduler, sharing a new {@link SharedGpuState}. */
  public static List<PluginRegistration<?>> registrations() {
    return registrations(new SharedGpuState());
  }

  /**
   * The registrations of one scheduler, sharing {@code shared} (for a caller that registers plugins
   * of its own over the same device usage index).
   */
  public static List<PluginRegistration<?>> registrations(SharedGpuState shared) {
    return List.of(
        VgpuPlugin.registration(shared),
        NodeLockPlugin.registration(shared),
        NumaPlugin.registration(shared),
        TopologyPlugin.registration(shared),
        PlacementPlugin.registration(shared),
        FgdPlugin.registration(shared));
  }
}
