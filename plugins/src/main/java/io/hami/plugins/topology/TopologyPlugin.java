package io.hami.plugins.topology;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NoArgs;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.plugins.vgpu.DeviceChoice;
import io.hami.plugins.vgpu.DeviceUsageIndex;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.PairScores;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.UsageOverlay;
import io.hami.plugins.vgpu.VendorRequest;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Topology-aware placement of multi-GPU containers from the pair scores a node publishes in {@code
 * hami.io/node-nvidia-score} (NVLink 100 per link, PCIe switch 50, ..., cross-CPU 10).
 *
 * <p>Score: the summed pair score of the best set of usable GPUs each multi-GPU container could get
 * on the node, normalised so that the best node scores 100. Reserve (ordered before {@code vgpu}):
 * for a pod with one multi-GPU container, prefers that best set on the chosen node through {@link
 * VgpuPlugin#PREFERRED_DEVICES}; {@code vgpu} still checks every device.
 */
public final class TopologyPlugin implements ScorePlugin, ScoreExtensions, ReservePlugin {
  public static final String NAME = "topology";

  private record Mine() implements StateData {}

  private static final StateKey<Mine> SET_BY_ME = StateKey.of("Reserve" + NAME, Mine.class);

  private final DeviceUsageIndex index;

  /** The cycle's snapshot, where Reserve finds the node Score saw. */
  private final Supplier<Snapshot> snapshot;

  TopologyPlugin(DeviceUsageIndex index, Supplier<Snapshot> snapshot) {
    this.index = requireNonNull(index, "index");
    this.snapshot = requireNonNull(snapshot, "snapshot");
  }

  public static TopologyPlugin create(FrameworkHandle handle, SharedGpuState shared) {
    return new TopologyPlugin(shared.index(handle), handle::snapshot);
  }

  public static PluginRegistration<NoArgs> registration(SharedGpuState shared) {
    return PluginRegistration.of(NAME, handle -> create(handle, shared));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    PodDeviceRequests r = state.get(VgpuPlugin.REQUESTS);
    if (r == null || !r.requests().multiDevice()) {
      return 0;
    }
    NodeDevices nd = UsageOverlay.view(state, index, node);
    if (nd.pairs() == PairScores.NONE) {
      return 0;
    }
    long total = 0;
    for (List<VendorRequest> c : r.requests().containers()) {
      for (VendorRequest q : c) {
        if (q.nums() >= 2) {
          GpuSets.Best b = GpuSets.best(nd, q, r.options());
          if (b != null) {
            total += b.score();
          }
        }
      }
    }
    return total;
  }

  @Override
  public Status normalizeScore(CycleState state, Pod pod, NodeScores scores) {
    scores.normalize(MAX_NODE_SCORE, false);
    return Status.success();
  }

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    PodDeviceRequests r = state.get(VgpuPlugin.REQUESTS);
    if (r == null || state.get(VgpuPlugin.PREFERRED_DEVICES) != null) {
      return Status.success();
    }
    int only = -1;
    List<? extends List<VendorRequest>> containers = r.requests().containers();
    for (int i = 0; i < containers.size(); i++) {
      if (!containers.get(i).isEmpty()) {
        if (only >= 0) {
          return Status.success();
        }
        only = i;
      }
    }
    if (only < 0 || containers.get(only).size() != 1 || containers.get(only).get(0).nums() < 2) {
      return Status.success();
    }
    NodeDevices nd = UsageOverlay.view(state, index, snapshot.get(), nodeName);
    if (nd.pairs() == PairScores.NONE) {
      return Status.success();
    }
    GpuSets.Best b = GpuSets.best(nd, containers.get(only).get(0), r.options());
    if (b == null) {
      return Status.success();
    }
    List<List<String>> choice = new ArrayList<>(containers.size());
    for (int i = 0; i < containers.size(); i++) {
      choice.add(i == only ? b.ids() : ImmutableList.of());
    }
    state.write(VgpuPlugin.PREFERRED_DEVICES, DeviceChoice.of(nodeName, choice));
    state.write(SET_BY_ME, new Mine());
    return Status.success();
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    if (state.get(SET_BY_ME) != null) {
      state.delete(VgpuPlugin.PREFERRED_DEVICES);
      state.delete(SET_BY_ME);
    }
  }
}
