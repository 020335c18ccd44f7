package io.hami.plugins.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.SchedulingObserver;
import io.hami.framework.testing.MakePod;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import io.hami.plugins.GpuPlugins;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * Scheduling throughput and decision latency of the GPU profile on an in-memory cluster, with a
 * baseline run of plain pods under the built-in plugins in the same process.
 *
 * <p>Usage: {@code GpuSchedulerBench [nodes] [gpusPerNode] [pods] [config]}; defaults 5000, 8,
 * 50000 and {@code ../config/scheduler/scheduler-config.yaml}. Prints the figures and a last line
 * {@code RESULT {json}}.
 */
public final class GpuSchedulerBench {

  /** Decision latencies and the wall time of one run. */
  record Run(int bound, int failed, long wallNanos, long[] decisions) {
    double podsPerSecond() {
      return bound * 1e9 / wallNanos;
    }

    double percentileMs(double p) {
      if (decisions.length == 0) {
        return 0;
      }
      long[] s = decisions.clone();
      Arrays.sort(s);
      return s[Math.min(s.length - 1, (int) Math.ceil(p * s.length) - 1)] / 1e6;
    }
  }

  public static void main(String[] args) {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int gpus = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int pods = args.length > 2 ? Integer.parseInt(args[2]) : 50_000;
    Path config = Path.of(args.length > 3 ? args[3] : "../config/scheduler/scheduler-config.yaml");

    Registry registry = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(registry::register);
    SchedulerConfiguration conf = new ConfigLoader(registry).load(config);

    // Warm-up on a small cluster so that both measured runs see compiled code.
    run(registry, conf, 200, gpus, 2000, true);
    run(registry, null, 200, gpus, 2000, false);

    Run base = run(registry, null, nodes, gpus, pods, false);
    Run gpu = run(registry, conf, nodes, gpus, pods, true);
    print("baseline (built-in plugins, plain pods)", base);
    print("GPU profile (mixed vGPU pods)", gpu);
    System.out.printf(
        "RESULT {\"nodes\":%d,\"gpusPerNode\":%d,\"pods\":%d,\"bound\":%d,\"podsPerSecond\":%.1f,"
            + "\"p50Ms\":%.3f,\"p99Ms\":%.3f,\"baselinePodsPerSecond\":%.1f,\"baselineP99Ms\":%.3f,"
            + "\"throughputVsBaseline\":%.3f}%n",
        nodes,
        gpus,
        pods,
        gpu.bound(),
        gpu.podsPerSecond(),
        gpu.percentileMs(0.5),
        gpu.percentileMs(0.99),
        base.podsPerSecond(),
        base.percentileMs(0.99),
        gpu.podsPerSecond() / base.podsPerSecond());
  }

  static void print(String label, Run r) {
    System.out.printf(
        "%-42s bound=%d failed=%d wall=%.2fs throughput=%.1f pods/s p50=%.3fms p99=%.3fms%n",
        label,
        r.bound(),
        r.failed(),
        r.wallNanos() / 1e9,
        r.podsPerSecond(),
        r.percentileMs(0.5),
        r.percentileMs(0.99));
  }

  static Run run(
      Registry registry,
      SchedulerConfiguration conf,
      int nodes,
      int gpus,
      int pods,
      boolean gpuPods) {
    long[] decisions = new long[pods * 2];
    int[] counts = new int[2];
    SchedulingObserver obs =
        new SchedulingObserver() {
          @Override
          public void scheduled(Pod pod, String nodeName, long decisionNanos) {
            if (counts[0] < decisions.length) {
              decisions[counts[0]++] = decisionNanos;
            }
          }

          @Override
          public void failed(Pod pod, Status status, String message, long decisionNanos) {
            counts[1]++;
          }
        };
    InMemoryCluster.Builder b =
        InMemoryCluster.builder(registry).observer(obs).recordEvents(false).seed(7L);
    if (conf != null) {
      b.config(conf);
    }
    try (InMemoryCluster c = b.build()) {
      for (int i = 0; i < nodes; i++) {
        String name = "node-" + i;
        Node n = MakeGpuNode.named(name).gpus(FakeGpus.a100s(name, gpus)).obj();
        c.addNode(n);
      }
      Random rnd = new Random(11);
      for (int i = 0; i < pods; i++) {
        c.addPod(
            gpuPods ? mixedPod(i, rnd) : MakePod.named("p" + i).cpu("100m").memory("128Mi").obj());
      }
      long t0 = System.nanoTime();
      InMemoryCluster.DrainResult d = c.drain(1);
      long wall = System.nanoTime() - t0;
      return new Run(d.bound(), counts[1], wall, Arrays.copyOf(decisions, counts[0]));
    }
  }

  /** Fractional (50%), whole card (15%), multi-GPU (15%), multi-container (20%). */
  static Pod mixedPod(int i, Random rnd) {
    int shape = rnd.nextInt(100);
    MakeGpuPod p = MakeGpuPod.named("p" + i);
    if (shape < 50) {
      p.gpus(1).gpuMemMiB(1024 * (1 + rnd.nextInt(8))).gpuCores(5 * (1 + rnd.nextInt(6)));
    } else if (shape < 65) {
      p.gpus(1);
    } else if (shape < 80) {
      p.gpus(2 + rnd.nextInt(3)).gpuMemMiB(4096).gpuCores(20);
    } else {
      p.container("a")
          .gpus(1)
          .gpuMemMiB(2048)
          .gpuCores(10)
          .container("b")
          .gpus(1)
          .gpuMemMiB(1024)
          .gpuCores(5);
    }
    return p.obj();
  }
}
