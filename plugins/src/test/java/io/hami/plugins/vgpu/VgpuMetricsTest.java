package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.PluginHarness;
import io.hami.model.Annotations;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import io.hami.plugins.metrics.Scrape;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The vgpu plugin's and the handshake's metrics, read back from the registry. */
final class VgpuMetricsTest {

  final FakeHandle handle =
      new FakeHandle("hami-scheduler", new FakeClock(Instant.parse("2026-08-21T08:20:39Z")));
  final SharedGpuState shared = new SharedGpuState();
  final VgpuPlugin plugin = VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, shared);
  final PrometheusRegistry registry = handle.metricsRegistry();

  PluginHarness harness(Node... nodes) {
    for (Node n : nodes) {
      handle.fireNodeAdd(n);
    }
    return PluginHarness.create()
        .plugin(plugin)
        .nodes(Arrays.stream(nodes).map(NodeInfo::of).toArray(NodeInfo[]::new));
  }

  @Test
  void unreadableNodes_gaugeByVendorAndParseFailuresByField() {
    Node bad =
        MakeGpuNode.named("n1")
            .annotation(Annotations.NODE_NVIDIA_REGISTER, "[{\"id\":\"g\",\"count\":\"x\"}]")
            .obj();
    Node badScore =
        MakeGpuNode.named("n2")
            .gpus(FakeGpus.t4s("n2", 1))
            .annotation(Annotations.NODE_NVIDIA_SCORE, "{")
            .obj();
    handle.fireNodeAdd(bad);
    handle.fireNodeAdd(badScore);
    assertThat(
            Scrape.value(
                registry,
                "hami_scheduler_gpu_unreadable_nodes",
                "vendor",
                "NVIDIA",
                "profile",
                "hami-scheduler"))
        .isEqualTo(2);
    assertThat(
            Scrape.value(
                registry,
                "hami_scheduler_gpu_annotation_parse_failures",
                "vendor",
                "NVIDIA",
                "field",
                Annotations.NODE_NVIDIA_REGISTER + ".count"))
        .isEqualTo(1);
    assertThat(
            Scrape.value(
                registry,
                "hami_scheduler_gpu_annotation_parse_failures",
                "vendor",
                "NVIDIA",
                "field",
                Annotations.NODE_NVIDIA_SCORE))
        .isEqualTo(1);

    handle.fireNodeUpdate(bad, MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 1)).obj());
    assertThat(Scrape.value(registry, "hami_scheduler_gpu_unreadable_nodes", "vendor", "NVIDIA"))
        .isEqualTo(1);
    // Counted once per turn to unreadable, not per event.
    handle.fireNodeUpdate(badScore, badScore);
    assertThat(Scrape.value(registry, "hami_scheduler_gpu_annotation_parse_failures")).isEqualTo(2);
  }

  @Test
  void fitFailures_areCountedByReasonPerRejectedNode() {
    PluginHarness h =
        harness(
            MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 1)).obj(),
            MakeGpuNode.named("n2").gpus(FakeGpus.t4s("n2", 1)).obj());
    assertThat(h.run(MakeGpuPod.named("p").gpus(1).gpuMemMiB(20000).obj()).selected()).isNull();
    assertThat(
            Scrape.value(
                registry,
                "hami_scheduler_gpu_fit_failures",
                "reason",
                "CardInsufficientMemory",
                "profile",
                "hami-scheduler"))
        .isEqualTo(2);
    assertThat(h.run(MakeGpuPod.named("q").gpus(3).obj()).selected()).isNull();
    assertThat(
            Scrape.value(
                registry, "hami_scheduler_gpu_fit_failures", "reason", "NodeInsufficientDevice"))
        .isEqualTo(2);
    assertThat(h.run(MakeGpuPod.named("ok").gpus(1).gpuMemMiB(100).obj()).selected()).isNotNull();
    assertThat(Scrape.value(registry, "hami_scheduler_gpu_fit_failures")).isEqualTo(4);
  }

  @Test
  void handshakeStates_gaugeByStateAndVendor() {
    List<Map<String, String>> writes = new ArrayList<>();
    DeviceUsageIndex index = plugin.index();
    HandshakeMonitor m =
        new HandshakeMonitor(
            GpuVendors.accounted(),
            handle.clock(),
            ZoneOffset.UTC,
            Duration.ofSeconds(15),
            (node, rv, annos) -> {
              writes.add(annos);
              return true;
            });
    m.addIndex(index);
    shared.metrics(handle).addHandshakes(handle.schedulerName(), m::counts);
    Node absent = MakeGpuNode.named("a").gpus(FakeGpus.t4s("a", 1)).withoutAllocatable().obj();
    Node reported =
        MakeGpuNode.named("r")
            .gpus(FakeGpus.t4s("r", 1))
            .withoutAllocatable()
            .annotation(Annotations.NODE_HANDSHAKE, "Reported 2026-08-21 08:20:00 +0000 UTC")
            .obj();
    Node requesting =
        MakeGpuNode.named("q")
            .gpus(FakeGpus.t4s("q", 1))
            .withoutAllocatable()
            .annotation(Annotations.NODE_HANDSHAKE, "Requesting_2026-08-21 08:20:30")
            .obj();
    Node expired =
        MakeGpuNode.named("e")
            .gpus(FakeGpus.t4s("e", 1))
            .annotation(Annotations.NODE_HANDSHAKE, "Requesting_2026-08-21 08:10:00")
            .obj();
    Node dead =
        MakeGpuNode.named("d")
            .gpus(FakeGpus.t4s("d", 1))
            .withoutAllocatable()
            .annotation(Annotations.NODE_HANDSHAKE, "Requesting_2026-08-21 08:10:00")
            .obj();
    for (Node n : List.of(absent, reported, requesting, expired, dead)) {
      m.listener().onNodeAdd(n);
    }
    m.runOnce();
    String g = "hami_scheduler_gpu_node_handshake";
    for (String state : List.of("absent", "reported", "requesting", "expired", "unhealthy")) {
      assertThat(
              Scrape.value(
                  registry, g, "state", state, "vendor", "NVIDIA", "profile", "hami-scheduler"))
          .as(state)
          .isEqualTo(1);
    }
    assertThat(writes).hasSize(3); // requests to a and r, clean-up of d
  }
}
