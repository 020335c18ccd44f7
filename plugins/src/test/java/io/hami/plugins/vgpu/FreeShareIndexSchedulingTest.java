package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.local.PodOutcome;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import io.hami.plugins.GpuPlugins;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The free share index changes no decision: the shipped profile fills a cluster of random GPU nodes
 * with random GPU pods until many no longer fit, with the index on and off, and every pod lands on
 * the same node, or fails with the same message, both times.
 */
final class FreeShareIndexSchedulingTest {

  static final Path SHIPPED = Path.of("..", "config", "scheduler", "scheduler-config.yaml");

  @Test
  void sameNodesAndMessages_withTheIndexOnAndOff() throws Exception {
    Map<String, String> on = run(true);
    Map<String, String> off = run(false);
    assertThat(on.keySet()).isEqualTo(off.keySet());
    List<String> differ = new ArrayList<>();
    on.forEach(
        (pod, with) -> {
          if (!with.equals(off.get(pod))) {
            differ.add(pod + ": index on " + with + ", off " + off.get(pod));
          }
        });
    assertThat(differ).isEmpty();
    assertThat(on.values()).filteredOn(v -> v.startsWith("bound")).hasSizeGreaterThan(500);
    assertThat(on.values()).filteredOn(v -> v.startsWith("failed")).hasSizeGreaterThan(100);
  }

  static Map<String, String> run(boolean index) throws Exception {
    Registry registry = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(registry::register);
    String yaml = Files.readString(SHIPPED);
    yaml =
        yaml.replace(
            "          gpuSchedulerPolicy: spread\n",
            "          gpuSchedulerPolicy: spread\n          freeShareIndex: " + index + "\n");
    SchedulerConfiguration config = new ConfigLoader(registry).parse(yaml, "shipped");
    Random rnd = new Random(20261204L);
    Map<String, String> out = new TreeMap<>();
    try (InMemoryCluster c =
        InMemoryCluster.builder(registry).config(config).seed(7L).recordEvents(false).build()) {
      // More nodes than a pod's search looks for (141 of 300), so where it starts matters.
      for (int i = 0; i < 300; i++) {
        String name = String.format("n%03d", i);
        int gpus = 1 + rnd.nextInt(4);
        c.addNode(
            MakeGpuNode.named(name)
                .gpus(rnd.nextBoolean() ? FakeGpus.t4s(name, gpus) : FakeGpus.a100s(name, gpus))
                .obj());
      }
      for (int p = 0; p < 1600; p++) {
        MakeGpuPod pod = MakeGpuPod.named(String.format("p%04d", p));
        switch (rnd.nextInt(4)) {
          case 0 -> pod.gpus(1).gpuMemMiB(1024 * (1 + rnd.nextInt(12))).gpuCores(rnd.nextInt(50));
          case 1 -> pod.gpus(1).gpuMemPercent(10 * (1 + rnd.nextInt(10))).gpuCores(10);
          case 2 -> pod.gpus(1 + rnd.nextInt(3)).gpuMemMiB(2048 * (1 + rnd.nextInt(6)));
          default -> pod.gpus(1).gpuMemMiB(4096).gpuCores(100);
        }
        c.addPod(pod.obj());
        if (p % 20 == 19) {
          c.drain(0);
        }
      }
      c.drain(0);
      for (Map.Entry<String, PodOutcome> e : c.outcomes().entrySet()) {
        PodOutcome o = e.getValue();
        out.put(e.getKey(), o.isBound() ? "bound " + o.node() : "failed " + o.message());
      }
    }
    return out;
  }
}
