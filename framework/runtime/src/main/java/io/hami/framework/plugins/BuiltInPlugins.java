package io.hami.framework.plugins;

import io.hami.framework.plugins.balancedallocation.NodeResourcesBalancedAllocationPlugin;
import io.hami.framework.plugins.defaultbinder.DefaultBinderPlugin;
import io.hami.framework.plugins.defaultpreemption.DefaultPreemptionPlugin;
import io.hami.framework.plugins.gangscheduling.GangSchedulingPlugin;
import io.hami.framework.plugins.imagelocality.ImageLocalityPlugin;
import io.hami.framework.plugins.interpodaffinity.InterPodAffinityPlugin;
import io.hami.framework.plugins.nodeaffinity.NodeAffinityPlugin;
import io.hami.framework.plugins.nodename.NodeNamePlugin;
import io.hami.framework.plugins.nodeports.NodePortsPlugin;
import io.hami.framework.plugins.noderesources.NodeResourcesFitPlugin;
import io.hami.framework.plugins.nodeunschedulable.NodeUnschedulablePlugin;
import io.hami.framework.plugins.nodevolumelimits.NodeVolumeLimitsPlugin;
import io.hami.framework.plugins.podspecsupport.PodSpecSupportPlugin;
import io.hami.framework.plugins.podtopologyspread.PodTopologySpreadPlugin;
import io.hami.framework.plugins.prioritysort.PrioritySortPlugin;
import io.hami.framework.plugins.schedulinggates.SchedulingGatesPlugin;
import io.hami.framework.plugins.tainttoleration.TaintTolerationPlugin;
import io.hami.framework.plugins.volumebinding.VolumeBindingPlugin;
import io.hami.framework.plugins.volumerestrictions.VolumeRestrictionsPlugin;
import io.hami.framework.plugins.volumezone.VolumeZonePlugin;
import io.hami.framework.runtime.Registry;

/** The GPU-agnostic plugins every scheduler needs so that ordinary pod constraints hold. */
public final class BuiltInPlugins {
  private BuiltInPlugins() {}

  /** Registers every built-in plugin into {@code registry} and returns it. */
  public static Registry registerAll(Registry registry) {
    return registry
        .register(SchedulingGatesPlugin.registration())
        .register(PrioritySortPlugin.registration())
        .register(PodSpecSupportPlugin.registration())
        .register(NodeUnschedulablePlugin.registration())
        .register(NodeNamePlugin.registration())
        .register(TaintTolerationPlugin.registration())
        .register(NodeAffinityPlugin.registration())
        .register(NodePortsPlugin.registration())
        .register(NodeResourcesFitPlugin.registration())
        .register(VolumeRestrictionsPlugin.registration())
        .register(NodeVolumeLimitsPlugin.registration())
        .register(VolumeBindingPlugin.registration())
        .register(VolumeZonePlugin.registration())
        .register(PodTopologySpreadPlugin.registration())
        .register(InterPodAffinityPlugin.registration())
        .register(DefaultPreemptionPlugin.registration())
        .register(NodeResourcesBalancedAllocationPlugin.registration())
        .register(ImageLocalityPlugin.registration())
        .register(DefaultBinderPlugin.registration())
        .register(GangSchedulingPlugin.registration());
  }

  /** A new registry holding the built-in plugins. */
  public static Registry registry() {
    return registerAll(new Registry());
  }
}
