package io.hami.nodeagent.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.nodeagent.nvml.NullNvml;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MonitorMetricsTest {
  static final Instant T0 = Instant.parse("2026-12-04T02:00:00Z");
  static final String GPU = "GPU-00000000-0000-0000-0000-000000000000";

  @TempDir Path hook;
  final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  static Pod pod(String uid, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withUid(uid)
        .withName(name)
        .withNamespace("ns")
        .endMetadata()
        .build();
  }

  static String text(PrometheusRegistry registry) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void switchAndBlockedTimeShowPerContainer() throws IOException {
    long now = T0.getEpochSecond();
    Path high =
        RegionFile.of("u1", "online")
            .gpus(GPU)
            .priority(0)
            .process(7, 0)
            .lastKernel(now)
            .write(hook);
    RegionFile.of("u2", "batch").gpus(GPU).priority(1).process(7, 0).lastKernel(now).write(hook);
    RegionFile.of("u3", "solo").gpus("GPU-other").priority(1).process(7, 0).write(hook);
    MutableClock clock = new MutableClock(T0);
    Monitor monitor =
        new Monitor(hook, Duration.ofSeconds(5), new NullNvml("test"), null, clock, executor);
    PrometheusRegistry registry = new PrometheusRegistry();
    new MonitorMetrics(monitor, () -> List.of(pod("u1", "web"), pod("u2", "train")))
        .register(registry);

    monitor.runOnce();
    clock.advance(Duration.ofSeconds(5));
    RegionFile.lastKernel(high, now + 5);
    monitor.runOnce();
    String t = text(registry);

    assertThat(t)
        .contains(
            "hami_container_utilization_switch{container=\"online\",namespace=\"ns\",pod=\"web\"} 1.0")
        .contains(
            "hami_container_utilization_switch{container=\"solo\",namespace=\"\",pod=\"u3\"} 0.0")
        .contains(
            "hami_container_priority_blocked{container=\"batch\",namespace=\"ns\",pod=\"train\",priority=\"1\"} 1.0")
        .contains(
            "hami_container_priority_blocked{container=\"online\",namespace=\"ns\",pod=\"web\",priority=\"0\"} 0.0")
        .contains(
            "hami_container_priority_blocked_seconds_total{container=\"batch\",namespace=\"ns\",pod=\"train\",priority=\"1\"} 5.0");
  }

  @Test
  void reclaimedSlotsCountPerContainer() throws IOException {
    RegionFile.of("u1", "train")
        .gpus(GPU)
        .process(7, 1001, 50)
        .process(8, 1002, 50)
        .process(9, 0)
        .write(hook);
    Monitor monitor =
        new Monitor(
            hook,
            Duration.ofSeconds(5),
            new NullNvml("test"),
            null,
            new MutableClock(T0),
            executor,
            pid -> new ProcessTable.Absent());
    PrometheusRegistry registry = new PrometheusRegistry();
    new MonitorMetrics(monitor, () -> List.of(pod("u1", "job"))).register(registry);

    monitor.runOnce();

    assertThat(text(registry))
        .contains(
            "hami_container_slots_reclaimed_total{container=\"train\",namespace=\"ns\",pod=\"job\"} 2.0");
  }
}
