package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.local.InMemoryCluster;
import io.hami.framework.testing.gpu.FakeGpus;
import io.hami.framework.testing.gpu.MakeGpuNode;
import io.hami.framework.testing.gpu.MakeGpuPod;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shipped GPU profile driving the real scheduling loop on an in-memory cluster. */
final class GpuSchedulingTest {

  static final Path CONFIG = Path.of("..", "config", "scheduler", "scheduler-config.yaml");

  static Registry registry() {
    Registry r = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(r::register);
    return r;
  }

  static InMemoryCluster cluster() {
    SchedulerConfiguration config = new ConfigLoader(registry()).load(CONFIG);
    return InMemoryCluster.builder(registry()).config(config).build();
  }

  @Test
  void shippedProfile_loads() {
    SchedulerConfiguration config = new ConfigLoader(registry()).load(CONFIG);
    assertThat(config.profiles()).extracting(p -> p.schedulerName()).contains("hami-scheduler");
  }

  @Test
  void fractionalPods_shareGpusUntilFull() {
    try (InMemoryCluster c = cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj());
      // 15360 MiB per T4: three 5000 MiB pods per card, six in all.
      for (int i = 0; i < 8; i++) {
        c.addPod(MakeGpuPod.named("p" + i).gpus(1).gpuMemMiB(5000).gpuCores(10).obj());
      }
      c.drain();
      assertThat(c.boundCount()).isEqualTo(6);
      assertThat(c.pendingCount()).isEqualTo(2);
      assertThat(c.outcome("default", "p7").orElseThrow().message()).contains("CardInsufficientMemory");
    }
  }

  @Test
  void mixedShapes_areAllPlacedWhenCapacityExists() {
    try (InMemoryCluster c = cluster()) {
      for (int n = 0; n < 4; n++) {
        c.addNode(MakeGpuNode.named("n" + n).gpus(FakeGpus.a100s("n" + n, 8)).obj());
      }
      for (int i = 0; i < 10; i++) {
        c.addPod(MakeGpuPod.named("frac" + i).gpus(1).gpuMemMiB(4096).gpuCores(20).obj());
        c.addPod(MakeGpuPod.named("whole" + i).gpus(1).obj());
        c.addPod(MakeGpuPod.named("multi" + i).gpus(2).gpuMemMiB(8192).gpuCores(30).obj());
        c.addPod(MakeGpuPod.named("two" + i).container("a").gpus(1).gpuMemMiB(2048).container("b").gpus(1).gpuMemMiB(1024).obj());
      }
      c.drain();
      assertThat(c.pendingCount()).isZero();
      assertThat(c.boundCount()).isEqualTo(40);
      Map<String, Integer> perNode = new HashMap<>();
      for (Pod p : c.pods()) {
        perNode.merge(p.getSpec().getNodeName(), 1, Integer::sum);
      }
      // binpack by default: the first nodes fill up before the last one is touched.
      assertThat(perNode).hasSizeLessThan(4);
    }
  }
}
