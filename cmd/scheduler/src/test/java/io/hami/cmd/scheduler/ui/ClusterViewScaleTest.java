package io.hami.cmd.scheduler.ui;

import static io.hami.cmd.scheduler.ui.ViewFixtures.gpuNode;
import static io.hami.cmd.scheduler.ui.ViewFixtures.gpuPod;
import static io.hami.cmd.scheduler.ui.ViewFixtures.info;
import static io.hami.cmd.scheduler.ui.ViewFixtures.uuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The view at 1,000 nodes × 8 GPUs, three pods per GPU and 200 pending pods: the body's size and
 * the server's render time (read inputs, build, encode, gzip), printed for the record.
 */
class ClusterViewScaleTest {
  static final int NODES = 1000;
  static final int GPUS = 8;

  @Test
  void thousandNodesOfEightGpus_renderInWellUnderASecond() {
    List<NodeInfo> nodes = new ArrayList<>(NODES);
    for (int n = 0; n < NODES; n++) {
      String name = String.format("gpu-node-%04d", n);
      List<Pod> pods = new ArrayList<>();
      for (int g = 0; g < GPUS; g++) {
        for (int p = 0; p < 3; p++) {
          pods.add(
              gpuPod(
                      "team-" + (n % 20),
                      "job-" + n + "-" + g + "-" + p,
                      name,
                      uuid(name, g) + ",8192,10")
                  .obj());
        }
      }
      nodes.add(info(gpuNode(name, GPUS).obj(), pods.toArray(Pod[]::new)));
    }
    List<Pod> pending = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      pending.add(MakePod.named("wait-" + i).namespace("team").obj());
    }
    FakeClock clock = new FakeClock();
    ClusterViewSource source = new ClusterViewSource(() -> nodes, () -> pending, List.of(), clock);

    long t0 = System.nanoTime();
    ClusterViewSource.Rendered r = source.current();
    long cold = System.nanoTime() - t0;
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 8; i++) {
      // One node changed since the last render, as between two polls of a busy cluster.
      String name = String.format("gpu-node-%04d", i);
      nodes.set(i, info(gpuNode(name, GPUS).obj()));
      clock.advance(Duration.ofSeconds(1));
      t0 = System.nanoTime();
      r = source.current();
      best = Math.min(best, System.nanoTime() - t0);
    }

    System.out.printf(
        "cluster view at %d nodes x %d GPUs, %d pods on GPUs, %d pending: json %d bytes,"
            + " gzip %d bytes; first render %.1f ms, then with one node changed (best of 8)"
            + " %.1f ms%n",
        NODES,
        GPUS,
        NODES * GPUS * 3,
        pending.size(),
        r.json().length,
        r.gzip().length,
        cold / 1e6,
        best / 1e6);
    assertThat(r.json().length).isLessThan(8 << 20);
    assertThat(Duration.ofNanos(best)).isLessThan(Duration.ofSeconds(1));
  }
}
