package io.hami.plugins.fgd;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import io.hami.plugins.GpuPlugins;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped fgd and placement profiles driving the real scheduling loop. */
final class FgdSchedulingTest {

  static final Path FGD = Path.of("..", "config", "scheduler", "fgd.yaml");
  static final Path PLACEMENT = Path.of("..", "config", "scheduler", "placement.yaml");

  static Registry registry() {
    Registry r = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(r::register);
    return r;
  }

  @Test
  void shippedProfiles_load() {
    assertThat(new ConfigLoader(registry()).load(FGD).profiles())
        .extracting(p -> p.schedulerName())
        .containsExactly("hami-fgd");
    assertThat(new ConfigLoader(registry()).load(PLACEMENT).profiles())
        .extracting(p -> p.schedulerName())
        .containsExactly(
            "hami-bestfit", "hami-packing", "hami-clustering", "hami-dotprod", "hami-random");
  }

  /**
   * With a whole-card target workload, FGD puts two half-card pods on the same card so that a
   * whole-card pod still fits; vgpu's spread GPU policy alone would split them across both cards.
   */
  @Test
  void fgdChoosesTheGpuAndVgpuHonoursIt(@TempDir Path dir) throws Exception {
    Path target = dir.resolve("target.csv");
    Files.writeString(
        target,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
            + "w0,1000,100,1,1000\nw1,1000,100,1,1000\nw2,1000,100,1,1000\n");
    String yaml =
        Files.readString(FGD)
            .replace("schedulerName: hami-fgd", "schedulerName: hami-scheduler")
            .replace("targetWorkloadFile: \"\"", "targetWorkloadFile: \"" + target + "\"")
            .replace("gpuSchedulerPolicy: binpack", "gpuSchedulerPolicy: spread");
    SchedulerConfiguration config = new ConfigLoader(registry()).parse(yaml, "fgd.yaml");
    try (InMemoryCluster c = InMemoryCluster.builder(registry()).config(config).build()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj());
      c.addPod(MakeGpuPod.named("half-a").gpus(1).gpuMemPercent(50).gpuCores(50).obj());
      c.drain();
      c.addPod(MakeGpuPod.named("half-b").gpus(1).gpuMemPercent(50).gpuCores(50).obj());
      c.drain();
      c.addPod(MakeGpuPod.named("whole").gpus(1).gpuMemPercent(100).gpuCores(100).obj());
      c.drain();
      assertThat(c.boundCount()).isEqualTo(3);
    }
  }

  @Test
  void withoutFgd_spreadLeavesNoWholeCard() {
    String yaml =
        """
        apiVersion: hami.io/v1
        kind: SchedulerConfiguration
        profiles:
          - schedulerName: hami-scheduler
            plugins:
              multiPoint:
                enabled:
                  - name: vgpu
            pluginConfig:
              - name: vgpu
                args:
                  gpuSchedulerPolicy: spread
        """;
    SchedulerConfiguration config = new ConfigLoader(registry()).parse(yaml, "spread.yaml");
    try (InMemoryCluster c = InMemoryCluster.builder(registry()).config(config).build()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj());
      for (String p : new String[] {"half-a", "half-b"}) {
        c.addPod(MakeGpuPod.named(p).gpus(1).gpuMemPercent(50).gpuCores(50).obj());
        c.drain();
      }
      c.addPod(MakeGpuPod.named("whole").gpus(1).gpuMemPercent(100).gpuCores(100).obj());
      c.drain();
      assertThat(c.boundCount()).isEqualTo(2);
    }
  }
}
