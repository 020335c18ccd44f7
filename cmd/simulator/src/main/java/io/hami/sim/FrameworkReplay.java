package io.hami.sim;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.local.PodOutcome;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.plugins.GpuPlugins;
import io.hami.plugins.fgd.DeviceShare;
import io.hami.plugins.fgd.FgdArgs;
import io.hami.plugins.placement.FgdPlugin;
import io.hami.plugins.placement.NodeTable;
import io.hami.plugins.placement.Task;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.SharedGpuState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * One replay through the real scheduler: the trace's nodes and pods become Kubernetes objects with
 * HAMi's annotations and requests, and an in-memory cluster runs the production queue, scheduling
 * cycle (filters, the policy's score plugin, {@code vgpu}'s Reserve) and binding for each pod in
 * turn. Seeds, shuffling, tuning and node order follow {@link Replay}, and nodes are added in
 * tie-break order, since the scheduler gives ties to the node added first. A pod that fits nowhere
 * is deleted: it fails for good, as in the paper's protocol.
 *
 * <p>The per-pod records are read from the scheduler's own device accounting (through {@link
 * SimProbe}), not recomputed. Not thread-safe; one instance per thread.
 */
public final class FrameworkReplay {

  static final String SCHEDULER = "hami-sim";

  private final PreparedTrace trace;

  public FrameworkReplay(PreparedTrace trace) {
    this.trace = trace;
  }

  /** What the probe saw bind last; both are set together. */
  private static final class Bound {
    @Nullable String node;
    @Nullable NodeDevices devices;
  }

  /** Replays the trace under {@code policy} with {@code seed}. */
  public RunResult run(FrameworkPolicy policy, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    int[] submitted = Replay.submissionOrder(trace, rng);
    int nodes = trace.nodes().size();
    int[] perm = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      perm[i] = i;
    }
    for (int i = nodes - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    int[] byRank = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      byRank[perm[i]] = i;
    }
    NodeTable mirror = trace.emptyTable(byRank);
    double emptyFragment = mirror.fragmentMilli();
    Map<String, Integer> rankOf = new HashMap<>();
    for (int r = 0; r < nodes; r++) {
      rankOf.put(trace.nodes().get(byRank[r]).name(), r);
    }

    Bound last = new Bound();
    Registry registry = BuiltInPlugins.registry();
    // The trace's own target workload replaces the fgd plugin's configured one.
    SharedGpuState gpuState = new SharedGpuState();
    GpuPlugins.registrations(gpuState).stream()
        .filter(r -> !r.name().equals(FgdPlugin.NAME))
        .forEach(registry::register);
    registry.register(
        PluginRegistration.of(
            FgdPlugin.NAME,
            FgdArgs.class,
            FgdArgs.DEFAULTS,
            (args, h) -> FgdPlugin.withWorkload(trace.hamiWorkload(), h, gpuState.index(h))));
    registry.register(
        SimProbe.registration(
            gpuState,
            (pod, node, devices) -> {
              last.node = node;
              last.devices = devices;
            }));
    SchedulerConfiguration config =
        new ConfigLoader(registry)
            .parse(policy.profile(SCHEDULER, seed), "profile " + policy.policyName());

    int pods = submitted.length;
    ReplayRecord record = new ReplayRecord(pods);
    try (InMemoryCluster cluster =
        InMemoryCluster.builder(registry).config(config).recordEvents(false).build()) {
      for (int r = 0; r < nodes; r++) {
        cluster.addNode(TraceToKube.node(trace.nodes().get(byRank[r])));
      }
      for (int p = 0; p < pods; p++) {
        TracePod tp = trace.pods().get(submitted[p]);
        Task task = trace.task(submitted[p]);
        // Tuning draws pods again: each submission gets a name of its own.
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
                "default",
                SCHEDULER);
        last.node = null;
        cluster.addPod(pod);
        cluster.drain(0);
        PodOutcome outcome = cluster.outcome("default", name).orElse(null);
        String boundNode = last.node;
        NodeDevices boundDevices = last.devices;
        if (outcome != null && outcome.isBound() && boundNode != null && boundDevices != null) {
          int r = Objects.requireNonNull(rankOf.get(boundNode), boundNode);
          int[] free = freeShares(boundDevices, mirror.gpus(r));
          int mask = 0;
          for (int g = 0; g < free.length; g++) {
            if (free[g] < mirror.free(r, g)) {
              mask |= 1 << g;
            }
          }
          mirror.set(
              r,
              mirror.cpuLeft(r) - task.cpuMilli(),
              mirror.memLeft(r) - task.memMiB(),
              free,
              task.clusterTag());
          record.placed(p, task.totalGpuMilli(), byRank[r], mask, mirror.totalFragment());
        } else {
          record.failed(p, task.totalGpuMilli(), mirror.totalFragment());
          cluster.deletePod("default", name);
        }
      }
    }
    return record.result(trace, policy.policyName(), seed, emptyFragment, submitted);
  }

  private static int[] freeShares(NodeDevices devices, int gpus) {
    List<DeviceUsage> cards = new ArrayList<>();
    for (DeviceUsage d : devices.devices()) {
      if ("NVIDIA".equals(d.vendor())) {
        cards.add(d);
      }
    }
    cards.sort(Comparator.comparingInt(DeviceUsage::index));
    if (cards.size() != gpus) {
      throw new IllegalStateException(
          "node " + devices.node() + " reports " + cards.size() + " GPUs, the trace has " + gpus);
    }
    int[] free = new int[gpus];
    for (int g = 0; g < gpus; g++) {
      DeviceUsage d = cards.get(g);
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
