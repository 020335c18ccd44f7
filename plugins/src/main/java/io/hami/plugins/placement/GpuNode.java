package io.hami.plugins.placement;

import io.hami.framework.api.NodeInfo;
import io.hami.plugins.fgd.DeviceShare;
import io.hami.plugins.fgd.Fragmentation;
import io.hami.plugins.fgd.HamiWorkload;
import io.hami.plugins.fgd.TargetWorkload;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One node in the compact form the placement policies score: a one-node {@link NodeTable} built
 * from the scheduler's view of the node (CPU and memory left, the GPU-clustering tags of its pods)
 * and from the device usage index (each NVIDIA card's free share, the smaller of its free memory
 * and free cores fractions). Its state is immutable once built (rebuilt when the node or its
 * devices change), so evaluations kept for it ({@link ShapeEvaluations}) stay valid while it lives.
 */
final class GpuNode {

  final Object owner;

  /** The node's slot in its plugin's {@link ShapeEvaluations}, the same across rebuilds. */
  final int slot;

  final Object workloadKey;
  final NodeTable table;
  final String[] ids;
  final String type;
  final int devmem;
  final int devcore;

  private GpuNode(
      Object owner,
      int slot,
      Object workloadKey,
      NodeTable table,
      String[] ids,
      String type,
      int devmem,
      int devcore) {
    this.owner = owner;
    this.slot = slot;
    this.workloadKey = workloadKey;
    this.table = table;
    this.ids = ids;
    this.type = type;
    this.devmem = devmem;
    this.devcore = devcore;
  }

  /**
   * Whether this compact form, kept on its NodeInfo, is the one {@code plugin} made against {@code
   * workload}. The node and its devices need no check: the NodeInfo is replaced when either changes
   * (the device index reports every change).
   */
  boolean current(Object plugin, Object workload) {
    return owner == plugin && workloadKey == workload;
  }

  /**
   * Builds the node.
   *
   * @param owner the plugin whose evaluations it keeps
   * @param slot the node's slot in the owner's evaluations
   * @param workloadFor the target workload per kind of card; cached nodes are rebuilt when it is
   *     replaced
   */
  static GpuNode of(
      Object owner, int slot, NodeInfo node, NodeDevices devices, CardWorkloads workloadFor) {
    List<DeviceUsage> cards = new ArrayList<>();
    for (DeviceUsage d : devices.devices()) {
      if ("NVIDIA".equals(d.vendor()) && !"mig".equals(d.mode())) {
        cards.add(d);
      }
    }
    cards.sort(Comparator.comparingInt(DeviceUsage::index));
    if (cards.size() > Fragmentation.MAX_GPUS) {
      cards = cards.subList(0, Fragmentation.MAX_GPUS);
    }
    int gpus = cards.size();
    String type = gpus == 0 ? "" : cards.get(0).type();
    int devmem = gpus == 0 ? 0 : cards.get(0).totalMemMiB();
    int devcore = gpus == 0 ? 0 : cards.get(0).totalCores();
    long cpuLeft = node.allocatable().milliCpu() - node.requested().milliCpu();
    long memLeft = (node.allocatable().memory() - node.requested().memory()) >> 20;
    TargetWorkload workload = workloadFor.on(type, devmem, devcore);
    int[] free = new int[gpus];
    String[] ids = new String[gpus];
    for (int g = 0; g < gpus; g++) {
      DeviceUsage d = cards.get(g);
      ids[g] = d.id();
      free[g] =
          DeviceShare.freeMilli(
              d.healthy() && !d.cordoned(),
              d.totalSlots(),
              d.usedSlots(),
              d.totalMemMiB(),
              d.usedMemMiB(),
              d.totalCores(),
              d.usedCores());
    }
    int tags = 0;
    for (var p : node.pods()) {
      PodShapes.PodShape s = PodShapes.of(p.pod(), p.requests());
      if (s != null && s.shape().gpus() > 0) {
        int d = s.shape().shareOn(devmem, devcore);
        tags |= s.shape().gpus() == 1 && d < Fragmentation.FULL ? 1 : 1 << s.shape().gpus();
      }
    }
    NodeTable table =
        NodeTable.single(
            workload,
            Math.max(cpuLeft, 0),
            Math.max(memLeft, 0),
            HamiWorkload.NODE_MODEL,
            free,
            tags);
    return new GpuNode(owner, slot, workloadFor, table, ids, type, devmem, devcore);
  }
}
