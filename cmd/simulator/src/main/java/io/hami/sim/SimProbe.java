package io.hami.sim;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PostBindPlugin;
import io.hami.plugins.vgpu.DeviceUsageIndex;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.SharedGpuState;

/**
 * Reports each binding with the node's device usage as the {@code vgpu} plugin accounts it, so that
 * the simulator can record the cluster's state after every pod without reading annotations.
 */
final class SimProbe implements PostBindPlugin {

  static final String NAME = "simprobe";

  /** Told of each bound pod with its node's devices after the binding. */
  @FunctionalInterface
  interface Listener {
    void bound(Pod pod, String node, NodeDevices devices);
  }

  private final DeviceUsageIndex index;
  private final Listener listener;

  private SimProbe(DeviceUsageIndex index, Listener listener) {
    this.index = index;
    this.listener = listener;
  }

  static PluginRegistration<?> registration(SharedGpuState gpuState, Listener listener) {
    return PluginRegistration.of(
        NAME, (FrameworkHandle h) -> new SimProbe(gpuState.index(h), listener));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void postBind(CycleState state, Pod pod, String nodeName) {
    listener.bound(pod, nodeName, index.node(nodeName));
  }
}
