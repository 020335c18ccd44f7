package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.framework.api.Status;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.SchedulingObserver;
import io.hami.model.Annotations;
import io.hami.model.JsonStrings;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceJson;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the real scheduler (queue, cache, cycle, plugins, binder) against an in-memory cluster of
 * GPU nodes and measures throughput and per-pod decision latency. Single-threaded by default so
 * that figures on a small machine are stable.
 */
public final class SchedulerBench {

  /** Inputs. */
  public record Params(
      int nodes,
      int gpusPerNode,
      int pods,
      int warmupPods,
      int parallelism,
      long seed,
      String profileName,
      PodShapes shapes,
      PerfWorkload workload,
      int initPods) {}

  /** The pods the benchmark creates. */
  public enum PodShapes {
    /** Every pod asks for one 4000 MiB, 10% slice of a GPU. */
    SLICE,
    /**
     * GPU pods of mixed shapes, deterministic by index: fractional (50%), whole card (15%),
     * multi-GPU (15%) and two containers with a GPU each (20%).
     */
    MIXED
  }

  /** Figures. */
  public record Result(
      Params params,
      int bound,
      int unschedulable,
      double seconds,
      double podsPerSecond,
      double cpuSeconds,
      double p50Ms,
      double p90Ms,
      double p99Ms,
      double maxMs,
      long heapUsedMiB,
      long heapMaxMiB,
      List<String> jvmFlags) {

    /** One line of JSON with every figure. */
    public String toJson() {
      return String.format(
          Locale.ROOT,
          "{\"workload\":%s,\"nodes\":%d,\"gpusPerNode\":%d,\"pods\":%d,\"warmupPods\":%d,\"parallelism\":%d,"
              + "\"initPods\":%d,\"profile\":%s,\"bound\":%d,\"unschedulable\":%d,\"seconds\":%.3f,"
              + "\"podsPerSecond\":%.1f,\"schedulerCpuSeconds\":%.3f,\"decisionP50Ms\":%.3f,\"decisionP90Ms\":%.3f,"
              + "\"decisionP99Ms\":%.3f,\"decisionMaxMs\":%.3f,\"heapUsedMiB\":%d,\"heapMaxMiB\":%d,"
              + "\"jvmFlags\":%s}",
          JsonStrings.quote(params.workload().flag()),
          params.nodes(),
          params.gpusPerNode(),
          params.pods(),
          params.warmupPods(),
          params.parallelism(),
          params.initPods(),
          JsonStrings.quote(params.profileName()),
          bound,
          unschedulable,
          seconds,
          podsPerSecond,
          cpuSeconds,
          p50Ms,
          p90Ms,
          p99Ms,
          maxMs,
          heapUsedMiB,
          heapMaxMiB,
          JsonStrings.quote(String.join(" ", jvmFlags)));
    }
  }

  private SchedulerBench() {}

  /** Runs one benchmark. */
  public static Result run(Params p, SchedulerConfiguration config, Registry registry) {
    LatencyRecorder latencies = new LatencyRecorder(p.pods());
    int[] failures = new int[1];
    SchedulingObserver observer =
        new SchedulingObserver() {
          @Override
          public void scheduled(Pod pod, String nodeName, long decisionNanos) {
            latencies.add(decisionNanos);
          }

          @Override
          public void failed(Pod pod, Status status, String message, long decisionNanos) {
            latencies.add(decisionNanos);
            failures[0]++;
          }
        };
    try (InMemoryCluster cluster =
        InMemoryCluster.builder(registry)
            .config(config)
            .parallelism(p.parallelism())
            .seed(p.seed())
            .recordEvents(false)
            .observer(observer)
            .build()) {
      for (int i = 0; i < p.nodes(); i++) {
        cluster.addNode(node(i, p.gpusPerNode()));
      }
      PerfWorkload w = p.workload();
      if (w != PerfWorkload.GPU) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < p.nodes(); i++) {
          names.add(nodeName(i));
        }
        w.objects(names, p.initPods(), p.pods()).forEach(cluster::putObject);
        for (int i = 0; i < p.initPods(); i++) {
          cluster.addPod(w.initPod(i));
        }
        cluster.drain();
        latencies.reset();
        failures[0] = 0;
      }
      if (w == PerfWorkload.GPU && p.warmupPods() > 0) {
        for (int i = 0; i < p.warmupPods(); i++) {
          cluster.addPod(pod("warmup", i, p.shapes()));
        }
        cluster.drain();
        for (int i = 0; i < p.warmupPods(); i++) {
          cluster.deletePod("bench", "warmup-" + i);
        }
        latencies.reset();
        failures[0] = 0;
      }
      for (int i = 0; i < p.pods(); i++) {
        cluster.addPod(w == PerfWorkload.GPU ? pod("pod", i, p.shapes()) : w.measuredPod(i));
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long cpuStart = threads.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      InMemoryCluster.DrainResult r = cluster.drain(0);
      double seconds = (System.nanoTime() - start) / 1e9;
      double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
      System.gc();
      long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      long max = Runtime.getRuntime().maxMemory();
      long[] sorted = latencies.sorted();
      return new Result(
          p,
          r.bound(),
          cluster.pendingCount(),
          seconds,
          r.bound() / seconds,
          cpuSeconds,
          percentileMs(sorted, 0.50),
          percentileMs(sorted, 0.90),
          percentileMs(sorted, 0.99),
          sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6,
          used >> 20,
          max >> 20,
          ManagementFactory.getRuntimeMXBean().getInputArguments());
    }
  }

  static double percentileMs(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  static String nodeName(int i) {
    return String.format(Locale.ROOT, "node-%05d", i);
  }

  /** A GPU node: 64 cores, 512 GiB, 110 pods, G GPUs of 80 GiB split 10 ways. */
  static Node node(int i, int gpus) {
    String name = nodeName(i);
    List<NodeDevice> devices = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      devices.add(
          NodeDevice.of(
              String.format("GPU-%05d-%02d", i, g),
              g,
              10,
              81920,
              100,
              "NVIDIA-A100-SXM4-80GB",
              g * 2 / Math.max(1, gpus),
              "hami-core",
              true));
    }
    Map<String, Quantity> capacity =
        Map.of(
            "cpu", new Quantity("64"),
            "memory", new Quantity("512Gi"),
            "pods", new Quantity("110"),
            "ephemeral-storage", new Quantity("1Ti"),
            "nvidia.com/gpu", new Quantity(String.valueOf(gpus * 10)));
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("kubernetes.io/hostname", name)
        .addToLabels("topology.kubernetes.io/zone", "zone-" + (i % 3))
        .addToAnnotations(Annotations.NODE_NVIDIA_REGISTER, NodeDeviceJson.encode(devices))
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withNewStatus()
        .withCapacity(capacity)
        .withAllocatable(capacity)
        .endStatus()
        .build();
  }

  static Pod pod(String prefix, int i, PodShapes shapes) {
    return shapes == PodShapes.MIXED ? mixedPod(prefix, i) : pod(prefix, i);
  }

  /** A GPU pod whose shape follows its index (see {@link PodShapes#MIXED}). */
  static Pod mixedPod(String prefix, int i) {
    int bucket = i % 20;
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(prefix + "-" + i)
            .withNamespace("bench")
            .endMetadata()
            .withNewSpec()
            .withSchedulerName(SchedulerConfiguration.DEFAULT_SCHEDULER_NAME)
            .endSpec();
    if (bucket < 10) {
      b.editSpec()
          .addToContainers(
              gpuContainer("main", 1, 1024 * (1 + (i / 20) % 8), 5 * (1 + (i / 7) % 6)))
          .endSpec();
    } else if (bucket < 13) {
      b.editSpec().addToContainers(gpuContainer("main", 1, 0, 0)).endSpec();
    } else if (bucket < 16) {
      b.editSpec().addToContainers(gpuContainer("main", 2 + (i / 20) % 3, 4096, 20)).endSpec();
    } else {
      b.editSpec()
          .addToContainers(gpuContainer("main", 1, 2048, 10), gpuContainer("sidecar", 1, 1024, 5))
          .endSpec();
    }
    return b.build();
  }

  /** A container with GPU limits (memory and cores left out when 0: a whole card). */
  static Container gpuContainer(String name, int gpus, int memMiB, int cores) {
    ContainerBuilder c =
        new ContainerBuilder()
            .withName(name)
            .withImage("registry.invalid/cuda-app:1")
            .withNewResources()
            .addToRequests("cpu", new Quantity("100m"))
            .addToRequests("memory", new Quantity("256Mi"))
            .addToLimits("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
            .endResources();
    if (memMiB > 0) {
      c.editResources()
          .addToLimits("nvidia.com/gpumem", new Quantity(String.valueOf(memMiB)))
          .endResources();
    }
    if (cores > 0) {
      c.editResources()
          .addToLimits("nvidia.com/gpucores", new Quantity(String.valueOf(cores)))
          .endResources();
    }
    return c.build();
  }

  /** A pod asking for one vGPU slice: 4000 MiB and 10% of the cores, 100m CPU, 256 MiB. */
  static Pod pod(String prefix, int i) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(prefix + "-" + i)
        .withNamespace("bench")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(SchedulerConfiguration.DEFAULT_SCHEDULER_NAME)
        .addNewContainer()
        .withName("main")
        .withImage("registry.invalid/cuda-app:1")
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .addToRequests("memory", new Quantity("256Mi"))
        .addToLimits("nvidia.com/gpu", new Quantity("1"))
        .addToLimits("nvidia.com/gpumem", new Quantity("4000"))
        .addToLimits("nvidia.com/gpucores", new Quantity("10"))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** Decision latencies in nanoseconds; single-threaded. */
  static final class LatencyRecorder {
    private long[] values;
    private int size;

    LatencyRecorder(int expected) {
      values = new long[Math.max(16, expected)];
    }

    void add(long v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    void reset() {
      size = 0;
    }

    long[] sorted() {
      long[] s = Arrays.copyOf(values, size);
      Arrays.sort(s);
      return s;
    }
  }
}
