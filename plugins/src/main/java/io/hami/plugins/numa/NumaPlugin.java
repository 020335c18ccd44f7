package io.hami.plugins.numa;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Status;
import io.hami.plugins.vgpu.DeviceUsageIndex;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.UsageOverlay;
import io.hami.plugins.vgpu.VgpuPlugin;
import org.jspecify.annotations.Nullable;

/**
 * NUMA alignment of multi-GPU containers. Score prefers nodes where every container asking for
 * several GPUs can have them on one NUMA node (100 when all can, 0 when none can); with {@link
 * AlignmentPolicy#SINGLE_NUMA_NODE} Filter also rejects the other nodes ({@code NumaNotFit}). Pods
 * that set {@code nvidia.com/numa-bind} are held to one NUMA node by {@code vgpu} itself. Reads the
 * requests {@code vgpu} PreFilter wrote and the shared {@link DeviceUsageIndex}.
 */
public final class NumaPlugin implements FilterPlugin, FilterEquivalence, ScorePlugin {
  public static final String NAME = "numa";

  private final AlignmentPolicy policy;
  private final DeviceUsageIndex index;

  // The last pod's: Multi is immutable, so a thread reading another's stale value derives it again.
  private volatile NumaAlignment.@Nullable Multi last;

  NumaPlugin(AlignmentPolicy policy, DeviceUsageIndex index) {
    this.policy = requireNonNull(policy, "policy");
    this.index = requireNonNull(index, "index");
  }

  public static NumaPlugin create(NumaArgs args, FrameworkHandle handle, SharedGpuState shared) {
    AlignmentPolicy p = AlignmentPolicy.parse(args.policy());
    if (p == null) {
      throw new IllegalArgumentException("policy: unknown NUMA alignment policy " + args.policy());
    }
    return new NumaPlugin(p, shared.index(handle));
  }

  public static PluginRegistration<NumaArgs> registration(SharedGpuState shared) {
    return PluginRegistration.of(
        NAME, NumaArgs.class, NumaArgs.DEFAULTS, (args, handle) -> create(args, handle, shared));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    if (policy != AlignmentPolicy.SINGLE_NUMA_NODE) {
      return Status.success();
    }
    PodDeviceRequests r = state.get(VgpuPlugin.REQUESTS);
    if (r == null || !r.requests().multiDevice()) {
      return Status.success();
    }
    NumaAlignment.Multi m = multi(r);
    return aligned(state, node, r, m) == m.size()
        ? Status.success()
        : Status.unschedulable("NumaNotFit");
  }

  /** The requests {@code vgpu} wrote: with the node's devices they decide Filter. */
  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    PodDeviceRequests r = state.get(VgpuPlugin.REQUESTS);
    return policy != AlignmentPolicy.SINGLE_NUMA_NODE || r == null ? AlignmentPolicy.NONE : r;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    PodDeviceRequests r = state.get(VgpuPlugin.REQUESTS);
    if (r == null || policy == AlignmentPolicy.NONE) {
      return 0;
    }
    if (!r.requests().multiDevice()) {
      return MAX_NODE_SCORE;
    }
    NumaAlignment.Multi m = multi(r);
    if (m.size() == 0) {
      return MAX_NODE_SCORE;
    }
    return MAX_NODE_SCORE * aligned(state, node, r, m) / m.size();
  }

  /** The pod's multi-device requests, derived once per pod rather than once per node. */
  private NumaAlignment.Multi multi(PodDeviceRequests r) {
    NumaAlignment.Multi m = last;
    if (m == null || m.source() != r) {
      m = NumaAlignment.Multi.of(r);
      last = m;
    }
    return m;
  }

  private int aligned(CycleState state, NodeInfo node, PodDeviceRequests r, NumaAlignment.Multi m) {
    if (r.overlay() != null) {
      // A dry run's or a rescheduled pod's view belongs to this cycle alone: nothing is kept.
      return NumaAlignment.aligned(UsageOverlay.view(state, index, node), m);
    }
    return NumaAlignment.aligned(node, index.node(node), m);
  }
}
