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
 * devices change), so the evaluations it remembers per task shape stay valid while it lives.
 */
final class GpuNode {

  final Object owner;
  final Object workloadKey;
  final NodeTable table;
  final String[] ids;
  final String type;
  final int devmem;
  final int devcore;

  private GpuNode(Object owner, Object workloadKey, NodeTable table, String[] ids,
      String type, int devmem, int devcore) {
    this.owner = owner;
    this.workloadKey = workloadKey;
    this.table = table;
    this.ids = ids;
    this.type = type;
    this.devmem = devmem;
    this.devcore = devcore;
  }

  /** {@link #memo}'s answer for a task not evaluated on this node yet. */
  static final long NOT_MEMOIZED = Long.MIN_VALUE + 1;

  private static final int MEMO_SLOTS = 32;

  /** One remembered evaluation; immutable, so a slot is read whole or not at all. */
  private record Memo(long cpuMilli, int gpuMilli, int gpuCount, long evaluation) {}

  // Evaluations of the tasks scored on this node since it last changed, by task shape: pods of a
  // workload share few shapes, so most scores are a lookup. Direct-mapped; a clash evicts.
  private final Memo[] memo = new Memo[MEMO_SLOTS];

  /** The remembered evaluation of the task on this node, or {@link #NOT_MEMOIZED}. */
  long memo(Task t) {
    return memo(t.cpuMilli(), t.gpuMilli(), t.gpuCount());
  }

  /** {@link #memo(Task)} for the task of these amounts, without making it. */
  long memo(long cpuMilli, int gpuMilli, int gpuCount) {
    Memo m = memo[slot(cpuMilli, gpuMilli, gpuCount)];
    return m != null && m.cpuMilli == cpuMilli && m.gpuMilli == gpuMilli && m.gpuCount == gpuCount
        ? m.evaluation
        : NOT_MEMOIZED;
  }

  void remember(Task t, long evaluation) {
    memo[slot(t.cpuMilli(), t.gpuMilli(), t.gpuCount())] =
        new Memo(t.cpuMilli(), t.gpuMilli(), t.gpuCount(), evaluation);
  }

  private static int slot(long cpuMilli, int gpuMilli, int gpuCount) {
    long h = (cpuMilli * 31 + gpuMilli) * 31 + gpuCount;
    return (int) ((h * 0x9E3779B97F4A7C15L) >>> 59) & (MEMO_SLOTS - 1);
  }

  /**
   * Whether this compact form, kept on its NodeInfo, is the one {@code plugin} made against {@code
   * workload}. The node and its devices need no check: the NodeInfo is replaced when either
   * changes (the device index reports every change).
   */
  boolean current(Object plugin, Object workload) {
    return owner == plugin && workloadKey == workload;
  }

  /**
   * Builds the node.
   *
   * @param owner the plugin whose evaluations it remembers
   * @param workloadFor the target workload per kind of card; cached nodes are rebuilt when it is
   *     replaced
   */
  static GpuNode of(Object owner, NodeInfo node, NodeDevices devices, CardWorkloads workloadFor) {
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
    return new GpuNode(owner, workloadFor, table, ids, type, devmem, devcore);
  }
}
