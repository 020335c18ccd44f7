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
 * and free cores fractions). Immutable once built; rebuilt when the node or its devices change.
 */
final class GpuNode {

  final long generation;
  final long devicesVersion;
  final Object workloadKey;
  final NodeTable table;
  final String[] ids;
  final String type;
  final int devmem;
  final int devcore;

  private GpuNode(long generation, long devicesVersion, Object workloadKey, NodeTable table, String[] ids,
      String type, int devmem, int devcore) {
    this.generation = generation;
    this.devicesVersion = devicesVersion;
    this.workloadKey = workloadKey;
    this.table = table;
    this.ids = ids;
    this.type = type;
    this.devmem = devmem;
    this.devcore = devcore;
  }

  boolean current(NodeInfo node, NodeDevices devices, Object workload) {
    return generation == node.generation() && devicesVersion == devices.version() && workloadKey == workload;
  }

  /**
   * Builds the node.
   *
   * @param workloadFor the target workload per kind of card; cached nodes are rebuilt when it is
   *     replaced
   */
  static GpuNode of(NodeInfo node, NodeDevices devices, CardWorkloads workloadFor) {
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
      free[g] = DeviceShare.freeMilli(d.healthy() && !d.cordoned(), d.totalSlots(), d.usedSlots(),
          d.totalMemMiB(), d.usedMemMiB(), d.totalCores(), d.usedCores());
    }
    int tags = 0;
    for (var p : node.pods()) {
      PodShapes.PodShape s = PodShapes.of(p.pod(), p.requests());
      if (s != null && s.shape().gpus() > 0) {
        int d = s.shape().shareOn(devmem, devcore);
        tags |= s.shape().gpus() == 1 && d < Fragmentation.FULL ? 1 : 1 << s.shape().gpus();
      }
    }
    NodeTable table = NodeTable.single(workload, Math.max(cpuLeft, 0), Math.max(memLeft, 0),
        HamiWorkload.NODE_MODEL, free, tags);
    return new GpuNode(node.generation(), devices.version(), workloadFor, table, ids, type, devmem, devcore);
  }
}
