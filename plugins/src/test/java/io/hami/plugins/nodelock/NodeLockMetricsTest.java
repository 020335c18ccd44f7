package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakePod;
import io.hami.plugins.metrics.GpuMetrics;
import io.hami.plugins.metrics.Scrape;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The node lock's metrics, read back from the registry after each code path. */
final class NodeLockMetricsTest {

  final FakeHandle handle =
      new FakeHandle("hami-scheduler", new FakeClock(Instant.parse("2026-08-21T08:20:39Z")));
  final NodeLockClient client = mock(NodeLockClient.class);
  final NodeLockPlugin plugin =
      new NodeLockPlugin(
          NodeLockArgs.DEFAULTS, handle, client, new GpuMetrics(handle.metricsRegistry()));
  final PrometheusRegistry registry = handle.metricsRegistry();

  static Pod pod(String name) {
    return MakePod.named(name).namespace("default").uid("uid-" + name).obj();
  }

  CycleState reserved(Pod p) {
    CycleState s = NodeLockIT.gpuState();
    assertThat(plugin.reserve(s, p, "n1").isSuccess()).isTrue();
    return s;
  }

  static Stream<StaleCause> causes() {
    return Stream.of(StaleCause.values());
  }

  @ParameterizedTest
  @MethodSource("causes")
  void brokenLocks_areCountedByCause(StaleCause cause) {
    when(client.acquire(anyString(), anyString(), anyString(), any()))
        .thenReturn(new NodeLockClient.Result.Acquired(new LockDecision.Stale(cause, "default/h")));
    Pod p = pod("a");
    CycleState s = reserved(p);
    assertThat(plugin.permit(s, p, "n1").status().isSuccess()).isTrue();
    assertThat(plugin.preBind(s, p, "n1").isSuccess()).isTrue();
    assertThat(
            Scrape.value(
                registry,
                "hami_scheduler_node_locks_broken",
                "cause",
                cause.label(),
                "profile",
                "hami-scheduler"))
        .isEqualTo(1);
    assertThat(Scrape.value(registry, "hami_scheduler_node_locks_broken")).isEqualTo(1);
  }

  @Test
  void lockHeldOnTheNode_isCounted() {
    when(client.acquire(anyString(), anyString(), anyString(), any()))
        .thenReturn(new NodeLockClient.Result.Held("other/pod", "2026-08-21T08:20:00Z"));
    Pod p = pod("a");
    CycleState s = reserved(p);
    plugin.permit(s, p, "n1");
    assertThat(plugin.preBind(s, p, "n1").code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(Scrape.value(registry, "hami_scheduler_node_lock_held", "holder", "node"))
        .isEqualTo(1);
    assertThat(Scrape.value(registry, "hami_scheduler_node_lock_held", "holder", "permit"))
        .isZero();
  }

  @Test
  void permitWaits_areCountedAndTimedByOutcome() {
    Pod a = pod("a");
    Pod b = pod("b");
    Pod c = pod("c");
    CycleState sa = reserved(a);
    CycleState sb = reserved(b);
    CycleState sc = reserved(c);
    assertThat(plugin.permit(sa, a, "n1").status().isSuccess()).isTrue();
    assertThat(plugin.permit(sb, b, "n1").status().code()).isEqualTo(Code.WAIT);
    assertThat(plugin.permit(sc, c, "n1").status().code()).isEqualTo(Code.WAIT);
    handle.putWaitingPod("uid-b", new NodeLockIT.RecordingWaitingPod(b));
    assertThat(Scrape.value(registry, "hami_scheduler_node_lock_permit_waits")).isEqualTo(2);
    assertThat(Scrape.value(registry, "hami_scheduler_node_lock_held", "holder", "permit"))
        .isEqualTo(2);

    // a gives the node up after 2 s: b is allowed.
    handle.fakeClock().advance(Duration.ofSeconds(2));
    plugin.unreserve(sa, a, "n1");
    String h = "hami_scheduler_node_lock_permit_wait_duration_seconds";
    assertThat(Scrape.value(registry, h, "result", "allowed")).isEqualTo(1);
    assertThat(Scrape.sum(registry, h, "result", "allowed")).isEqualTo(2.0);

    // c times out 3 s later and is unreserved.
    handle.fakeClock().advance(Duration.ofSeconds(3));
    plugin.unreserve(sc, c, "n1");
    assertThat(Scrape.value(registry, h, "result", "rejected")).isEqualTo(1);
    assertThat(Scrape.sum(registry, h, "result", "rejected")).isEqualTo(5.0);
  }
}
