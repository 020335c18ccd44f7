package io.hami.cmd.scheduler.ui;

import static io.hami.cmd.scheduler.ui.ViewFixtures.gpuNode;
import static io.hami.cmd.scheduler.ui.ViewFixtures.gpuPod;
import static io.hami.cmd.scheduler.ui.ViewFixtures.info;
import static io.hami.cmd.scheduler.ui.ViewFixtures.uuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.MakeNode;
import io.hami.model.Annotations;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ClusterViewSourceTest {
  private final FakeClock clock = new FakeClock(Instant.parse("2026-12-04T01:00:00Z"));
  private final AtomicReference<List<NodeInfo>> nodes = new AtomicReference<>(List.of());
  private final AtomicReference<List<Pod>> pending = new AtomicReference<>(List.of());
  private final AtomicInteger reads = new AtomicInteger();
  private final ClusterViewSource source =
      new ClusterViewSource(
          () -> {
            reads.incrementAndGet();
            return nodes.get();
          },
          pending::get,
          List.of(),
          clock);

  @Test
  void registerSeen_staysWhileTheAnnotationIsUnchanged_andMovesWhenItChanges() {
    Instant t0 = clock.instant();
    nodes.set(List.of(info(gpuNode("n1", 2).obj())));
    assertThat(registered(source.state(clock.instant()))).isEqualTo(t0);

    clock.advance(Duration.ofMinutes(5));
    assertThat(registered(source.state(clock.instant()))).isEqualTo(t0);

    nodes.set(List.of(info(gpuNode("n1", 3).obj())));
    clock.advance(Duration.ofMinutes(1));
    assertThat(registered(source.state(clock.instant()))).isEqualTo(clock.instant());

    nodes.set(
        List.of(
            info(
                MakeNode.named("n1")
                    .annotation(Annotations.NODE_HANDSHAKE, "Reported 2026-12-04")
                    .obj())));
    assertThat(registered(source.state(clock.instant()))).isNull();
  }

  private static Instant registered(ClusterState s) {
    return s.nodes().get(0).detail().registerSeen();
  }

  @Test
  void current_rendersAtMostOncePerInterval_andTheEtagFollowsTheContent() {
    nodes.set(List.of(info(gpuNode("n1", 1).obj())));
    ClusterViewSource.Rendered first = source.current();
    clock.advance(Duration.ofMillis(100));
    assertThat(source.current()).isSameAs(first);
    assertThat(reads).hasValue(1);

    clock.advance(ClusterViewSource.MIN_INTERVAL);
    ClusterViewSource.Rendered same = source.current();
    assertThat(reads).hasValue(2);
    assertThat(same.etag()).isEqualTo(first.etag());

    nodes.set(
        List.of(
            info(gpuNode("n1", 1).obj(), gpuPod("ns", "a", "n1", uuid("n1", 0) + ",1,1").obj())));
    clock.advance(ClusterViewSource.MIN_INTERVAL);
    assertThat(source.current().etag()).isNotEqualTo(first.etag());
  }
}
