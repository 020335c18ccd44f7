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
    // The header's total is stale without the lock: the live slot's used[0] counts.
    b.putLong(d + SharedRegionLayout.D_MEM_USED, 1);
    b.putInt(d + SharedRegionLayout.D_SM_UTIL, smUtil);
    slot(b, 0, 7, used);
    return b.array();
  }

  /** Writes slot {@code k}: its pid (0 free) and its {@code used[0]}. */
  static void slot(ByteBuffer b, int k, int pid, long used0) {
    int at = SharedRegionLayout.HEADER_SIZE + k * SharedRegionLayout.SLOT_SIZE;
    b.putInt(at + SharedRegionLayout.S_PID, pid);
    b.putLong(at + SharedRegionLayout.S_USED, used0);
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

  @Test
  void memoryUsedIsTheSumOverLiveSlots_aReclaimedSlotStopsCountingAtOnce() throws Exception {
    byte[] image = ours("GPU-0", 3000L << 20, 100L << 20, 0);
    ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
    slot(b, 1, 8, 200L << 20);
    slot(b, 1023, 9, 300L << 20);
    slot(b, 2, 0, 5000L << 20); // freed, its counters not yet cleared
    region("u1_a", "r1.cache", image);
    ContainerMetrics metrics =
        new ContainerMetrics(
            hook, () -> List.of(pod("train", "u1")), Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    assertThat(metrics.samples())
        .singleElement()
        .satisfies(
            s -> assertThat(s.region().devices().get(0).memUsedBytes()).isEqualTo(600L << 20));

    // The monitor reclaims slot 1 by setting its pid to 0 and nothing else.
    Path file = hook.resolve("vgpu/containers/u1_a/r1.cache");
    b.putInt(SharedRegionLayout.HEADER_SIZE + SharedRegionLayout.SLOT_SIZE, 0);
    Files.write(file, image);
    assertThat(metrics.samples())
        .singleElement()
        .satisfies(
            s -> assertThat(s.region().devices().get(0).memUsedBytes()).isEqualTo(400L << 20));
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
