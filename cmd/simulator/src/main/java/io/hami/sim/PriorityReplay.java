package io.hami.sim;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.local.PodOutcome;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.plugins.GpuPlugins;
import io.hami.plugins.vgpu.SharedGpuState;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A replay with priorities through the real scheduler: the trace's pods arrive in the seed's order,
 * a share of them drawn at random with priority {@link #HIGH} and the rest with priority 0, until
 * every pod has arrived. Pods never leave on their own (the FGD protocol); a pod that cannot be
 * placed when it arrives is deleted. Run once with the default profile's {@code DefaultPreemption}
 * and once without it, the two runs tell how many high-priority pods preemption places, and at what
 * cost in evicted low-priority pods.
 */
public final class PriorityReplay {

  /** The priority of the high-priority share. */
  public static final int HIGH = 1000;

  static final String SCHEDULER = "hami-sim";
  private static final String NAMESPACE = "default";

  private final PreparedTrace trace;
  private final double highShare;

  /**
   * @param highShare the fraction of pods with priority {@link #HIGH}, in [0, 1]
   */
  public PriorityReplay(PreparedTrace trace, double highShare) {
    this.trace = requireNonNull(trace, "trace");
    if (!(highShare >= 0 && highShare <= 1)) {
      throw new IllegalArgumentException(
          "the high-priority share must be within [0, 1], was " + highShare);
    }
    this.highShare = highShare;
  }

  /** What one run placed. GPU amounts are in milli-GPUs (1000 = one card). */
  public record Result(
      String trace,
      long seed,
      boolean preemption,
      int highSubmitted,
      int highPlaced,
      long highGpuMilliSubmitted,
      long highGpuMilliPlaced,
      int lowSubmitted,
      int lowPlaced,
      int lowEvicted,
      long gpuMilliAllocatedAtEnd,
      long gpuMilliCapacity) {

    /** Low-priority pods still running at the end. */
    public int lowRunningAtEnd() {
      return lowPlaced - lowEvicted;
    }
  }

  /** Replays the trace with {@code seed}, with or without preemption. */
  public Result run(long seed, boolean preemption) {
    SplittableRandom rng = new SplittableRandom(seed);
    int[] submitted = Replay.submissionOrder(trace, rng);
    Registry registry = BuiltInPlugins.registry();
    GpuPlugins.registrations(new SharedGpuState()).forEach(registry::register);
    SchedulerConfiguration config =
        new ConfigLoader(registry).parse(profile(preemption), "priority replay profile");

    int highSubmitted = 0;
    int highPlaced = 0;
    long highMilliSubmitted = 0;
    long highMilliPlaced = 0;
    int lowSubmitted = 0;
    int lowPlaced = 0;
    // The GPU amount of every placed pod by name, to total what is left running at the end.
    Map<String, Long> placedMilli = new HashMap<>();
    Map<String, Boolean> placedHigh = new HashMap<>();
    try (InMemoryCluster cluster =
        InMemoryCluster.builder(registry).config(config).recordEvents(false).build()) {
      for (TraceNode n : trace.nodes()) {
        cluster.addNode(TraceToKube.node(n));
      }
      for (int p = 0; p < submitted.length; p++) {
        TracePod tp = trace.pods().get(submitted[p]);
        boolean high = rng.nextDouble() < highShare;
        String name = tp.name() + "-" + p;
        Pod pod =
            TraceToKube.pod(
                new TracePod(
                    name,
                    tp.cpuMilli(),
                    tp.memMiB(),
                    tp.gpuCount(),
                    tp.gpuMilli(),
                    tp.gpuSpec(),
                    tp.models()),
                NAMESPACE,
                SCHEDULER);
        pod.getSpec().setPriority(high ? HIGH : 0);
        long milli = tp.totalGpuMilli();
        if (high) {
          highSubmitted++;
          highMilliSubmitted += milli;
        } else {
          lowSubmitted++;
        }
        cluster.addPod(pod);
        // Backoff rounds let a preemptor retry once its victims are gone (simulated time).
        cluster.drain();
        PodOutcome outcome = cluster.outcome(NAMESPACE, name).orElse(null);
        if (outcome != null && outcome.isBound()) {
          placedMilli.put(name, milli);
          placedHigh.put(name, high);
          if (high) {
            highPlaced++;
            highMilliPlaced += milli;
          } else {
            lowPlaced++;
          }
        } else {
          cluster.deletePod(NAMESPACE, name);
        }
      }
      long allocated = 0;
      int lowRunning = 0;
      for (Pod pod : cluster.pods()) {
        String name = pod.getMetadata().getName();
        Long milli = placedMilli.get(name);
        if (milli != null) {
          allocated += milli;
          if (!Boolean.TRUE.equals(placedHigh.get(name))) {
            lowRunning++;
          }
        }
      }
      return new Result(
          trace.name(),
          seed,
          preemption,
          highSubmitted,
          highPlaced,
          highMilliSubmitted,
          highMilliPlaced,
          lowSubmitted,
          lowPlaced,
          lowPlaced - lowRunning,
          allocated,
          trace.capacity());
    }
  }

  /**
   * The default profile with {@code vgpu} (HAMi's binpack policies), with or without {@code
   * DefaultPreemption} at PostFilter.
   */
  static String profile(boolean preemption) {
    StringBuilder y = new StringBuilder();
    y.append("apiVersion: hami.io/v1\nkind: SchedulerConfiguration\n");
    y.append("profiles:\n  - schedulerName: ").append(SCHEDULER).append('\n');
    y.append("    plugins:\n      multiPoint:\n        enabled:\n          - name: vgpu\n");
    if (!preemption) {
      y.append("      postFilter:\n        disabled:\n          - name: DefaultPreemption\n");
    }
    y.append("    pluginConfig:\n      - name: vgpu\n        args:\n");
    y.append("          nodeSchedulerPolicy: binpack\n          gpuSchedulerPolicy: binpack\n");
    return y.toString();
  }
}
