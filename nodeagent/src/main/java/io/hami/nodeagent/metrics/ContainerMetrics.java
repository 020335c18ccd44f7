package io.hami.nodeagent.metrics;

import com.google.common.base.Suppliers;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.nodeagent.shm.SharedRegion;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-container gauges read, when scraped, from libvgpu's shared regions under {@code
 * <hook>/vgpu/containers/<podUID>_<container>/*.cache}. Directories of pods that are not on this
 * node any more are skipped.
 */
public final class ContainerMetrics {
  private static final Logger log = LoggerFactory.getLogger(ContainerMetrics.class);
  private static final String[] LABELS = {
    "namespace", "pod", "container", "vdevice_index", "device_uuid"
  };

  private final Path containersDir;
  private final Supplier<List<Pod>> pods;
  private final Clock clock;
  // Region files already warned about; entries of removed containers are dropped each scan.
  private final Set<Path> warned = ConcurrentHashMap.newKeySet();
  // Every gauge of one scrape reads the same regions.
  private final Supplier<List<Sample>> scrape =
      Suppliers.memoizeWithExpiration(this::samples, 1, TimeUnit.SECONDS);

  /** One container's region with the pod it belongs to. */
  public record Sample(
      String namespace, String pod, String container, SharedRegion.Snapshot region) {}

  public ContainerMetrics(Path hookPath, Supplier<List<Pod>> pods, Clock clock) {
    this.containersDir = hookPath.resolve("vgpu").resolve("containers");
    this.pods = pods;
    this.clock = clock;
  }

  public void register(PrometheusRegistry registry) {
    device(
        registry,
        "hami_vgpu_memory_used_bytes",
        "GPU memory used by the container",
        (s, d) -> d.memUsedBytes());
    device(
        registry,
        "hami_vgpu_memory_limit_bytes",
        "GPU memory limit of the container (0: none)",
        (s, d) -> d.memLimitBytes());
    device(
        registry,
        "hami_vgpu_memory_peak_bytes",
        "Highest GPU memory use of the container",
        (s, d) -> d.memPeakBytes());
    device(
        registry,
        "hami_container_device_utilization_ratio",
        "SM utilization of the container, 0..1",
        (s, d) -> d.smUtil() / 100.0);
    device(
        registry,
        "hami_container_device_core_limit_ratio",
        "SM limit of the container, 0..1 (0: none)",
        (s, d) -> d.smLimit() / 100.0);
    device(
        registry,
        "hami_container_device_busy_seconds",
        "GPU time charged to the container's launches",
        (s, d) -> d.busyNanos() / 1e9);
    device(
        registry,
        "hami_container_device_throttled_seconds",
        "Time the container's launches waited",
        (s, d) -> d.throttledNanos() / 1e9);
    GaugeWithCallback.builder()
        .name("hami_container_last_kernel_elapsed_seconds")
        .help("Seconds since the container's latest kernel launch")
        .labelNames("namespace", "pod", "container")
        .callback(
            cb -> {
              long now = clock.instant().getEpochSecond();
              for (Sample s : scrape.get()) {
                if (s.region().lastKernelTime() > 0) {
                  cb.call(
                      (double) Math.max(0, now - s.region().lastKernelTime()),
                      s.namespace(),
                      s.pod(),
                      s.container());
                }
              }
            })
        .register(registry);
  }

  private interface Value {
    double of(Sample s, SharedRegion.DeviceUsage d);
  }

  private void device(PrometheusRegistry registry, String name, String help, Value value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(LABELS)
        .callback(
            cb -> {
              for (Sample s : scrape.get()) {
                for (SharedRegion.DeviceUsage d : s.region().devices()) {
                  cb.call(
                      value.of(s, d),
                      s.namespace(),
                      s.pod(),
                      s.container(),
                      Integer.toString(d.index()),
                      d.uuid());
                }
              }
            })
        .register(registry);
  }

  /**
   * Logs a region that cannot be read: once per file at WARN (a scrape runs every few seconds), at
   * DEBUG while its library has not set it up yet.
   */
  private void skipped(Path cache, SharedRegion.RegionException e) {
    if (e.uninitialised()) {
      log.debug("skipping region: {}", e.getMessage());
    } else if (warned.add(cache)) {
      log.warn("skipping region, further failures of this file at DEBUG: {}", e.getMessage());
    } else {
      log.debug("skipping region: {}", e.getMessage());
    }
  }

  /** Every readable region of a container whose pod is on this node. */
  public List<Sample> samples() {
    List<Sample> out = new ArrayList<>();
    if (!Files.isDirectory(containersDir)) {
      return out;
    }
    Map<String, Pod> byUid = new HashMap<>();
    try {
      for (Pod p : pods.get()) {
        byUid.put(p.getMetadata().getUid(), p);
      }
    } catch (RuntimeException e) {
      log.warn("cannot list pods for container metrics: {}", e.toString());
      return out;
    }
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(containersDir)) {
      for (Path dir : dirs) {
        String name = dir.getFileName().toString();
        int sep = name.indexOf('_');
        Pod pod = sep > 0 ? byUid.get(name.substring(0, sep)) : null;
        if (pod == null || !Files.isDirectory(dir)) {
          continue;
        }
        try (DirectoryStream<Path> caches = Files.newDirectoryStream(dir, "*.cache")) {
          for (Path cache : caches) {
            try {
              out.add(
                  new Sample(
                      pod.getMetadata().getNamespace(),
                      pod.getMetadata().getName(),
                      name.substring(sep + 1),
                      SharedRegion.read(cache)));
            } catch (SharedRegion.RegionException e) {
              skipped(cache, e);
            }
          }
        }
      }
    } catch (IOException e) {
      log.warn("cannot scan {}: {}", containersDir, e.toString());
    }
    warned.removeIf(p -> !Files.exists(p));
    return out;
  }
}
