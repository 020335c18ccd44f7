package io.hami.plugins;

import io.hami.framework.api.PluginRegistration;
import io.hami.plugins.nodelock.NodeLockPlugin;
import io.hami.plugins.numa.NumaPlugin;
import io.hami.plugins.topology.TopologyPlugin;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.util.List;

/**
 * The GPU plugins of this module, for the scheduler's registry: {@code
 * GpuPlugins.registrations().forEach(registry::register)}.
 *
 * <p>In a profile, order them {@code topology}, {@code nodelock}, {@code vgpu}, {@code numa}: the
 * topology plugin must reserve before {@code vgpu} so that its preferred devices are honoured,
 * and the node lock must be taken in PreBind before {@code vgpu} writes the pod's annotations.
 */
public final class GpuPlugins {
  private GpuPlugins() {}

  public static List<PluginRegistration<?>> registrations() {
    return List.of(
        VgpuPlugin.registration(),
        NodeLockPlugin.registration(),
        NumaPlugin.registration(),
        TopologyPlugin.registration(),
        io.hami.plugins.placement.PlacementPlugin.registration(),
        io.hami.plugins.placement.FgdPlugin.registration());
  }
}
