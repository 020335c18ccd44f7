package io.hami.sim;

import com.google.common.collect.ImmutableList;
import io.hami.framework.plugins.balancedallocation.NodeResourcesBalancedAllocationPlugin;
import io.hami.framework.plugins.noderesources.NodeResourcesFitPlugin;
import io.hami.plugins.fgd.DeviceShare;
import io.hami.plugins.placement.NodeTable;
import io.hami.plugins.placement.Task;
import io.hami.plugins.vgpu.DeviceFitter;
import io.hami.plugins.vgpu.DevicePick;
import io.hami.plugins.vgpu.DeviceScores;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.NodePlacer;
import io.hami.plugins.vgpu.Placement;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.PodRequests;
import io.hami.plugins.vgpu.VendorRequest;
import io.hami.plugins.vgpu.VgpuArgs;
import io.hami.plugins.vgpu.VgpuScoring;
import java.util.SplittableRandom;

/**
 * One replay of a prepared trace under one of HAMi's own policies on the fast engine, placing each
 * pod as the scheduler's HAMi profile does ({@link FrameworkPolicy#profile}): among the nodes that
 * pass the filters, the highest {@code vgpu} score (HAMi's node score of the cards' usage, highest
 * for binpack, lowest for spread) wins; equal HAMi scores go to the higher sum of the default
 * profile's NodeResourcesFit (LeastAllocated) and NodeResourcesBalancedAllocation scores, the only
 * default scores that tell trace nodes apart; remaining ties to the node that comes first. The
 * chosen node's cards are picked by {@code vgpu}'s own {@link NodePlacer} under the GPU policy.
 *
 * <p>Every score comes from the plugins' own functions ({@link DeviceScores#node}, {@link
 * VgpuScoring#exactNodeScore}, {@link NodeResourcesFitPlugin#resourceScore}, {@link
 * NodeResourcesBalancedAllocationPlugin#balancedScore}) on usage kept as {@code vgpu} keeps it, one
 * {@link DeviceUsage} per card. Seeds, shuffling, tuning and node order are {@link Replay}'s. A
 * node's HAMi score is recomputed only when a pod lands on it. Not thread-safe; one instance per
 * thread.
 */
public final class HamiReplay {

  private static final String VENDOR = "NVIDIA";

  private final PreparedTrace trace;

  public HamiReplay(PreparedTrace trace) {
    this.trace = trace;
  }

  /** Replays the trace under {@code policy} with {@code seed}. */
  public RunResult run(HamiPolicy policy, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    int[] submitted = Replay.submissionOrder(trace, rng);
    int nodes = trace.nodes().size();
    int[] perm = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      perm[i] = i;
    }
    Replay.shuffle(perm, rng);
    int[] byRank = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      byRank[perm[i]] = i;
    }
    NodeTable table = trace.emptyTable(byRank);
    double emptyFragment = table.fragmentMilli();

    // The cards of each node (by rank) as vgpu accounts them, and the node's HAMi score.
    DeviceUsage[][] cards = new DeviceUsage[nodes][];
    float[] hamiScore = new float[nodes];
    long[] cpuCap = new long[nodes];
    long[] memCap = new long[nodes];
    for (int r = 0; r < nodes; r++) {
      TraceNode n = trace.nodes().get(byRank[r]);
      cards[r] = new DeviceUsage[n.gpus()];
      for (int g = 0; g < n.gpus(); g++) {
        cards[r][g] =
            DeviceUsage.idle(
                "GPU-" + n.name() + "-" + g,
                g,
                VENDOR,
                TraceToKube.deviceType(n.model()),
                0,
                TraceToKube.SHARE_SLOTS,
                TraceToKube.memoryMiB(n.model()),
                100);
      }
      hamiScore[r] = DeviceScores.node(ImmutableList.copyOf(cards[r]));
      cpuCap[r] = n.cpuMilli();
      memCap[r] = n.memMiB();
    }
    NodePlacer placer =
        new NodePlacer(VgpuArgs.DEFAULTS.scoreByVendor(), DeviceFitter.QuotaCheck.NONE);
    PodGpuOptions options =
        PodGpuOptions.DEFAULT.withNodePolicy(policy.nodePolicy()).withGpuPolicy(policy.gpuPolicy());

    double[] fractions = new double[2];
    int shapes = trace.shapeCount();
    // Filter verdicts per node and task shape, kept until the node changes.
    boolean[] fits = new boolean[nodes * shapes];
    int[] stamp = new int[nodes * shapes];

    int pods = submitted.length;
    ReplayRecord record = new ReplayRecord(pods);
    for (int p = 0; p < pods; p++) {
      Task task = trace.task(submitted[p]);
      int shape = task.shapeId();
      long mem = task.memMiB();
      boolean gpu = task.gpuCount() > 0;
      int best = -1;
      double bestScore = 0;
      long bestTie = 0;
      for (int n = 0, ci = shape; n < nodes; n++, ci += shapes) {
        if (mem > table.memLeft(n)) {
          continue;
        }
        int v = table.version(n) + 1;
        if (stamp[ci] != v) {
          fits[ci] = table.fitsIgnoringMemory(n, task);
          stamp[ci] = v;
        }
        if (!fits[ci]) {
          continue;
        }
        // A pod without GPUs has no vgpu score: every node ties and the default scores decide.
        double score = gpu ? VgpuScoring.exactNodeScore(hamiScore[n], policy.nodePolicy()) : 0;
        int c = best < 0 ? 1 : Double.compare(score, bestScore);
        if (c < 0) {
          continue;
        }
        long tie = defaultScores(task, table, n, cpuCap[n], memCap[n], fractions);
        if (c > 0 || tie > bestTie) {
          best = n;
          bestScore = score;
          bestTie = tie;
        }
      }
      int mask = 0;
      if (best >= 0) {
        if (gpu) {
          mask = placeCards(placer, options, cards, best, trace.pods().get(submitted[p]));
          hamiScore[best] = DeviceScores.node(ImmutableList.copyOf(cards[best]));
        }
        // The table takes the cards' free shares as vgpu accounts them, as the scheduler's
        // replay reads them back.
        table.set(
            best,
            table.cpuLeft(best) - task.cpuMilli(),
            table.memLeft(best) - task.memMiB(),
            freeShares(cards[best]),
            task.clusterTag());
        record.placed(p, task.totalGpuMilli(), byRank[best], mask, table.totalFragment());
      } else {
        record.failed(p, task.totalGpuMilli(), table.totalFragment());
      }
    }
    return record.result(trace, policy.policyName(), seed, emptyFragment, submitted);
  }

  /**
   * The default profile's scores that differ between trace nodes, with their weights of 1:
   * NodeResourcesFit (LeastAllocated over CPU and memory) plus NodeResourcesBalancedAllocation.
   * Memory in MiB ranks as in bytes: both scale numerator and denominator alike. {@code fractions}
   * is scratch space for two values.
   */
  private static long defaultScores(
      Task task, NodeTable table, int n, long cpuCap, long memCap, double[] fractions) {
    long cpuReq = cpuCap - table.cpuLeft(n) + task.cpuMilli();
    long memReq = memCap - table.memLeft(n) + task.memMiB();
    long fit =
        (NodeResourcesFitPlugin.resourceScore(false, cpuCap, cpuReq)
                + NodeResourcesFitPlugin.resourceScore(false, memCap, memReq))
            / 2;
    if (task.cpuMilli() == 0 && task.memMiB() == 0) {
      return fit; // BalancedAllocation skips a best-effort pod
    }
    int k = 0;
    double total = 0;
    if (cpuCap > 0) {
      fractions[k] = Math.min(1.0, (double) cpuReq / cpuCap);
      total += fractions[k++];
    }
    if (memCap > 0) {
      fractions[k] = Math.min(1.0, (double) memReq / memCap);
      total += fractions[k++];
    }
    return fit + NodeResourcesBalancedAllocationPlugin.balancedScore(fractions, k, total);
  }

  /**
   * Picks the pod's cards on node {@code r} with {@code vgpu}'s placer, as its Reserve does, for
   * the request {@link TraceToKube#pod} gives the pod, and records their usage; returns the cards
   * as a bit mask.
   */
  private static int placeCards(
      NodePlacer placer, PodGpuOptions options, DeviceUsage[][] cards, int r, TracePod pod) {
    int pct = Math.max(1, (pod.gpuMilli() + 9) / 10);
    VendorRequest request = new VendorRequest(VENDOR, pod.gpuCount(), 0, pct, pct);
    Placement placement =
        placer.place(
            NodeDevices.of("node-" + r, ImmutableList.copyOf(cards[r])),
            PodRequests.single(request),
            options,
            null);
    if (placement.reasons() != null) {
      throw new IllegalStateException(
          "pod "
              + pod.name()
              + " passed the filters but vgpu cannot place it: "
              + placement.reasons());
    }
    int mask = 0;
    for (ImmutableList<DevicePick> container : placement.containers()) {
      for (DevicePick pick : container) {
        for (int g = 0; g < cards[r].length; g++) {
          if (cards[r][g].id().equals(pick.id())) {
            cards[r][g] = cards[r][g].plus(1, pick.memMiB(), pick.cores());
            mask |= 1 << g;
          }
        }
      }
    }
    return mask;
  }

  /** Each card's free share in milli-GPU, as the engines' cluster table holds it. */
  private static int[] freeShares(DeviceUsage[] cards) {
    int[] free = new int[cards.length];
    for (int g = 0; g < cards.length; g++) {
      DeviceUsage d = cards[g];
      free[g] =
          DeviceShare.freeMilli(
              true,
              d.totalSlots(),
              d.usedSlots(),
              d.totalMemMiB(),
              d.usedMemMiB(),
              d.totalCores(),
              d.usedCores());
    }
    return free;
  }
}
