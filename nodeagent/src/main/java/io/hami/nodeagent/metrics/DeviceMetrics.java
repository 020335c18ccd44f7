package io.hami.nodeagent.metrics;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import io.hami.model.device.NodeDevice;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.publish.RegisterRecords;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-GPU gauges, computed when scraped: capacity as registered, what the pods on this node were
 * given ({@code hami.io/vgpu-devices-allocated} of pods that have not finished), and health.
 */
public final class DeviceMetrics {
  private static final Logger log = LoggerFactory.getLogger(DeviceMetrics.class);
  private static final String[] LABELS = {"node", "device_uuid", "device_index", "device_type"};

  /** What the pods hold on one GPU. */
  public record Usage(long memoryMiB, long cores, int slots) {
    static final Usage NONE = new Usage(0, 0, 0);

    Usage plus(ContainerDevice d) {
      return new Usage(memoryMiB + d.usedmem(), cores + d.usedcores(), slots + 1);
    }
  }

  private final NodeAgentConfig config;
  private final GpuInventory inventory;
  private final Supplier<List<Pod>> pods;

  public DeviceMetrics(NodeAgentConfig config, GpuInventory inventory, Supplier<List<Pod>> pods) {
    this.config = config;
    this.inventory = inventory;
    this.pods = pods;
  }

  public void register(PrometheusRegistry registry) {
    gauge(
        registry,
        "hami_node_gpu_memory_total_bytes",
        "GPU memory registered for sharing",
        (r, u) -> r.devmem() * 1048576.0);
    gauge(
        registry,
        "hami_node_gpu_memory_allocated_bytes",
        "GPU memory given to pods",
        (r, u) -> u.memoryMiB() * 1048576.0);
    gauge(
        registry,
        "hami_node_gpu_cores_total",
        "GPU core capacity in percent",
        (r, u) -> r.devcore());
    gauge(
        registry,
        "hami_node_gpu_cores_allocated",
        "GPU cores given to pods, in percent",
        (r, u) -> u.cores());
    gauge(registry, "hami_node_gpu_slots_total", "vGPU slots (split count)", (r, u) -> r.count());
    gauge(registry, "hami_node_gpu_slots_used", "vGPU slots in use", (r, u) -> u.slots());
    gauge(
        registry,
        "hami_node_gpu_healthy",
        "1 when the GPU is healthy",
        (r, u) -> r.health() ? 1 : 0);
  }

  private interface Value {
    double of(NodeDevice record, Usage usage);
  }

  private void gauge(PrometheusRegistry registry, String name, String help, Value value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(LABELS)
        .callback(
            cb -> {
              List<Gpu> gpus = inventory.snapshot();
              List<NodeDevice> records = RegisterRecords.build(config, gpus);
              Map<String, Usage> usage = usage(config.nodeName(), safePods());
              for (NodeDevice r : records) {
                cb.call(
                    value.of(r, usage.getOrDefault(r.id(), Usage.NONE)),
                    config.nodeName(),
                    r.id(),
                    Integer.toString(r.index()),
                    r.type());
              }
            })
        .register(registry);
  }

  private List<Pod> safePods() {
    try {
      return pods.get();
    } catch (RuntimeException e) {
      log.warn("cannot list pods for metrics: {}", e.toString());
      return List.of();
    }
  }

  /** Usage per GPU UUID from the pods bound to {@code node} that have not finished. */
  public static Map<String, Usage> usage(String node, List<Pod> pods) {
    Map<String, Usage> out = new HashMap<>();
    for (Pod p : pods) {
      if (PodPhases.isTerminal(p)) {
        continue;
      }
      Map<String, String> a = p.getMetadata().getAnnotations();
      if (a == null
          || !node.equals(a.get(Annotations.VGPU_NODE))
          || a.get(Annotations.VGPU_DEVICES_ALLOCATED) == null) {
        continue;
      }
      var decoded = PodDevicesCodec.decode(a.get(Annotations.VGPU_DEVICES_ALLOCATED));
      if (decoded.failure().isPresent()) {
        log.debug(
            "skipping pod with a malformed {} pod={}: {}",
            Annotations.VGPU_DEVICES_ALLOCATED,
            p.getMetadata().getName(),
            decoded.failure().get());
        continue;
      }
      for (List<ContainerDevice> ctr : decoded.orElse(PodDevices.empty()).containers()) {
        for (ContainerDevice d : ctr) {
          out.merge(
              d.uuid(),
              Usage.NONE.plus(d),
              (x, y) ->
                  new Usage(
                      x.memoryMiB() + y.memoryMiB(), x.cores() + y.cores(), x.slots() + y.slots()));
        }
      }
    }
    return out;
  }
}
