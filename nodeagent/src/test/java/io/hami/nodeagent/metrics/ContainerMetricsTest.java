package io.hami.nodeagent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.nodeagent.shm.HamiCoreRegionLayout;
import io.hami.nodeagent.shm.RegionLayout;
import io.hami.nodeagent.shm.SharedRegionLayout;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Container metrics over a node where one container runs libvgpu and another HAMi-core. */
class ContainerMetricsTest {
  @TempDir Path hook;

  final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  final Logger logger = (Logger) LoggerFactory.getLogger(ContainerMetrics.class);

  @BeforeEach
  void captureLogs() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void releaseLogs() {
    logger.detachAppender(logs);
  }

  static Pod pod(String name, String uid) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName(name)
        .withUid(uid)
        .endMetadata()
        .build();
  }

  static byte[] ours(String uuid, long limit, long used, int smUtil) {
    ByteBuffer b =
        ByteBuffer.allocate((int) SharedRegionLayout.REGION_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(SharedRegionLayout.H_MAGIC, SharedRegionLayout.MAGIC);
    b.putShort(SharedRegionLayout.H_VERSION_MAJOR, (short) 1);
    b.putLong(SharedRegionLayout.H_REGION_SIZE, SharedRegionLayout.REGION_SIZE);
    b.putInt(SharedRegionLayout.H_DEVICE_COUNT, 1);
    int d = SharedRegionLayout.DEVICE_RECORD_OFFSET;
    b.put(d, uuid.getBytes(StandardCharsets.UTF_8));
    b.putLong(d + SharedRegionLayout.D_MEM_LIMIT, limit);
    b.putLong(d + SharedRegionLayout.D_MEM_USED, used);
    b.putInt(d + SharedRegionLayout.D_SM_UTIL, smUtil);
    return b.array();
  }

  static byte[] hamiCore(String uuid, long limit, long used, int smUtil) {
    ByteBuffer b =
        ByteBuffer.allocate(HamiCoreRegionLayout.REGION_SIZE + 1).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(HamiCoreRegionLayout.H_MAGIC, HamiCoreRegionLayout.MAGIC);
    b.putInt(HamiCoreRegionLayout.H_VERSION_MAJOR, 1);
    b.putInt(HamiCoreRegionLayout.H_VERSION_MINOR, 2);
    b.putLong(HamiCoreRegionLayout.H_DEVICE_NUM, 1);
    b.put(HamiCoreRegionLayout.H_UUIDS, uuid.getBytes(StandardCharsets.UTF_8));
    b.putLong(HamiCoreRegionLayout.H_LIMIT, limit);
    b.putInt(HamiCoreRegionLayout.H_PROC_NUM, 1);
    int slot = HamiCoreRegionLayout.H_PROCS;
    b.putInt(slot + HamiCoreRegionLayout.S_PID, 7);
    b.putLong(slot + HamiCoreRegionLayout.S_USED + HamiCoreRegionLayout.U_TOTAL, used);
    b.putLong(slot + HamiCoreRegionLayout.S_DEVICE_UTIL + HamiCoreRegionLayout.UT_SM_UTIL, smUtil);
    return b.array();
  }

  private void region(String dir, String file, byte[] content) throws Exception {
    Path d = hook.resolve("vgpu/containers").resolve(dir);
    Files.createDirectories(d);
    Files.write(d.resolve(file), content);
  }

  @Test
  void readsBothLayouts_skipsEmptyRegionsQuietly_andWarnsOncePerUnknownFile() throws Exception {
    region("u1_a", "r1.cache", ours("GPU-0", 3000L << 20, 1000L << 20, 37));
    region("u2_b", "r2.cache", hamiCore("GPU-1", 2000L << 20, 500L << 20, 12));
    region("u2_c", "r3.cache", new byte[0]);
    byte[] odd = new byte[4096];
    ByteBuffer.wrap(odd).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0xdeadbeef);
    region("u2_d", "r4.cache", odd);
    ContainerMetrics metrics =
        new ContainerMetrics(
            hook,
            () -> List.of(pod("train", "u1"), pod("serve", "u2")),
            Clock.fixed(Instant.ofEpochSecond(1_000), ZoneOffset.UTC));

    List<ContainerMetrics.Sample> samples = metrics.samples();
    metrics.samples();

    assertThat(samples)
        .extracting(s -> s.container() + ":" + s.region().layout())
        .containsExactlyInAnyOrder("a:" + RegionLayout.LIBVGPU, "b:" + RegionLayout.HAMI_CORE);
    assertThat(logs.list)
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .extracting(ILoggingEvent::getFormattedMessage)
        .singleElement()
        .asString()
        .contains("r4.cache", "unknown region layout (magic 0xdeadbeef")
        .doesNotContain("r3.cache");

    PrometheusRegistry registry = new PrometheusRegistry();
    metrics.register(registry);
    assertThat(gauge(registry, "hami_vgpu_memory_used_bytes"))
        .containsExactlyInAnyOrder("a GPU-0 1.048576E9", "b GPU-1 5.24288E8");
    assertThat(gauge(registry, "hami_vgpu_memory_limit_bytes"))
        .containsExactlyInAnyOrder("a GPU-0 3.145728E9", "b GPU-1 2.097152E9");
    assertThat(gauge(registry, "hami_container_device_utilization_ratio"))
        .containsExactlyInAnyOrder("a GPU-0 0.37", "b GPU-1 0.12");
  }

  /** The data points of one gauge as "container uuid value". */
  private static List<String> gauge(PrometheusRegistry registry, String name) {
    List<String> out = new ArrayList<>();
    for (MetricSnapshot s : registry.scrape()) {
      if (s.getMetadata().getPrometheusName().equals(name) && s instanceof GaugeSnapshot g) {
        for (GaugeSnapshot.GaugeDataPointSnapshot p : g.getDataPoints()) {
          out.add(
              p.getLabels().get("container")
                  + " "
                  + p.getLabels().get("device_uuid")
                  + " "
                  + p.getValue());
        }
      }
    }
    return out;
  }
}
