package io.hami.nodeagent.metrics;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import io.hami.model.device.MigProfile;
import io.hami.model.device.NodeDevice;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.MigInstances;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.publish.RegisterRecords;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-GPU gauges, computed when scraped: capacity as registered, what the pods on this node were
 * given ({@code hami.io/vgpu-devices-allocated} of pods that have not finished), and health; in MIG
 * mode also one {@code hami_mig_device_info} series per MIG instance a pod holds.
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
  private final Supplier<? extends Map<String, ? extends List<MigProfile>>> migProfiles;

  public DeviceMetrics(NodeAgentConfig config, GpuInventory inventory, Supplier<List<Pod>> pods) {
    this(config, inventory, pods, Map::of);
  }

  /**
   * @param migProfiles the MIG profiles each GPU registers (MIG mode), so capacity matches the
   *     register annotation
   */
  public DeviceMetrics(
      NodeAgentConfig config,
      GpuInventory inventory,
      Supplier<List<Pod>> pods,
      Supplier<? extends Map<String, ? extends List<MigProfile>>> migProfiles) {
    this.config = config;
    this.inventory = inventory;
    this.pods = pods;
    this.migProfiles = migProfiles;
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
    GaugeWithCallback.builder()
        .name("hami_mig_device_info")
        .help("1 for each MIG instance a container on this node holds")
        .labelNames(
            "namespace",
            "pod",
            "container",
            "vdevice_index",
            "device_uuid",
            "mig_uuid",
            "profile",
            "gpu_instance_id",
            "compute_instance_id")
        .callback(
            cb -> {
              for (MigSeries m : migInstances(config.nodeName(), safePods())) {
                cb.call(
                    1,
                    m.namespace(),
                    m.pod(),
                    m.container(),
                    Integer.toString(m.allocation().deviceIndex()),
                    m.allocation().gpuUuid(),
                    m.instance().migUuid(),
                    m.allocation().profile(),
                    Integer.toString(m.instance().gpuInstanceId()),
                    Integer.toString(m.instance().computeInstanceId()));
              }
            })
        .register(registry);
  }

  /** One MIG instance held by a container. */
  public record MigSeries(
      String namespace,
      String pod,
      String container,
      MigAllocation allocation,
      MigAllocation.Instance instance) {}

  /** The MIG instances the unfinished pods on {@code node} hold (those the agent created). */
  public static List<MigSeries> migInstances(String node, List<Pod> pods) {
    List<MigSeries> out = new ArrayList<>();
    for (Pod p : pods) {
      Map<String, String> a = p.getMetadata().getAnnotations();
      if (PodPhases.isTerminal(p) || a == null || !node.equals(a.get(Annotations.VGPU_NODE))) {
        continue;
      }
      List<String> names = new ArrayList<>();
      if (p.getSpec() != null) {
        for (List<Container> cs :
            List.of(
                p.getSpec().getInitContainers() == null
                    ? List.<Container>of()
                    : p.getSpec().getInitContainers(),
                p.getSpec().getContainers() == null
                    ? List.<Container>of()
                    : p.getSpec().getContainers())) {
          cs.forEach(c -> names.add(c.getName()));
        }
      }
      for (MigAllocation m : MigInstances.allocations(p)) {
        if (m.runtime().isEmpty()) {
          continue;
        }
        String container =
            m.containerIndex() >= 0 && m.containerIndex() < names.size()
                ? names.get(m.containerIndex())
                : Integer.toString(m.containerIndex());
        out.add(
            new MigSeries(
                p.getMetadata().getNamespace(),
                p.getMetadata().getName(),
                container,
                m,
                m.runtime().get()));
      }
    }
    return out;
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
              List<NodeDevice> records = RegisterRecords.build(config, gpus, migProfiles.get());
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
