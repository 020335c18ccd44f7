package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.framework.testing.OpaqueFilter;
import io.hami.model.Annotations;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The shipped GPU profile driving the real scheduling loop on an in-memory cluster. */
public final class GpuSchedulingTest {

  static final Path CONFIG = Path.of("..", "config", "scheduler", "scheduler-config.yaml");

  public static Registry registry() {
    Registry r = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(r::register);
    return r;
  }

  /** An in-memory cluster scheduling with the shipped profile. */
  public static InMemoryCluster cluster() {
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
      assertThat(c.outcome("default", "p7").orElseThrow().message())
          .contains("CardInsufficientMemory");
    }
  }

  /** HAMi v2.10 refuses a trailing comma in the weights; the pod's owner learns which value. */
  @Test
  void scoringWeightsWithATrailingComma_areRefusedNamingTheAnnotation() {
    try (InMemoryCluster c = cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 1)).obj());
      c.addPod(
          MakeGpuPod.named("w")
              .gpus(1)
              .annotation(Annotations.DEVICE_SCORING_WEIGHTS, "slot=1,core=1,memory=1,")
              .obj());
      c.drain();
      String named = Annotations.DEVICE_SCORING_WEIGHTS + "=\"slot=1,core=1,memory=1,\"";
      assertThat(c.outcome("default", "w").orElseThrow().isBound()).isFalse();
      assertThat(c.outcome("default", "w").orElseThrow().message())
          .contains(named)
          .contains("expected slot, core, and memory weights");
      assertThat(c.events())
          .anySatisfy(
              e -> {
                assertThat(e.reason()).isEqualTo("FailedScheduling");
                assertThat(e.note()).contains(named);
              });
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
        c.addPod(
            MakeGpuPod.named("two" + i)
                .container("a")
                .gpus(1)
                .gpuMemMiB(2048)
                .container("b")
                .gpus(1)
                .gpuMemMiB(1024)
                .obj());
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

  /**
   * Random arrivals and departures of a few pod shapes on mixed nodes, with the shipped profile:
   * each pod's node and devices, and each refusal message, as given by the scheduler reusing Filter
   * verdicts.
   */
  private static List<String> churn(boolean reuse) throws IOException {
    Registry r = registry();
    r.register(PluginRegistration.of("opaque", h -> new OpaqueFilter("opaque")));
    String yaml = Files.readString(CONFIG);
    if (!reuse) {
      yaml =
          yaml.replace(
              "          - name: numa\n", "          - name: numa\n          - name: opaque\n");
    }
    SchedulerConfiguration config = new ConfigLoader(r).parse(yaml, "churn");
    List<String> out = new ArrayList<>();
    Random rnd = new Random(20261201L);
    Map<String, Boolean> live = new LinkedHashMap<>();
    try (InMemoryCluster c =
        InMemoryCluster.builder(r).config(config).recordEvents(false).build()) {
      for (int n = 0; n < 6; n++) {
        c.addNode(MakeGpuNode.named("t" + n).gpus(FakeGpus.t4s("t" + n, 2)).obj());
        c.addNode(MakeGpuNode.named("a" + n).gpus(FakeGpus.a100s("a" + n, 4)).obj());
      }
      for (int i = 0; i < 600; i++) {
        if (!live.isEmpty() && rnd.nextInt(3) == 0) {
          List<String> names = new ArrayList<>(live.keySet());
          String gone = names.get(rnd.nextInt(names.size()));
          live.remove(gone);
          c.deletePod("default", gone);
          continue;
        }
        String name = "p" + i;
        MakeGpuPod p = MakeGpuPod.named(name);
        switch (rnd.nextInt(4)) {
          case 0 -> p.gpus(1).gpuMemMiB(4000).gpuCores(25);
          case 1 -> p.gpus(1).gpuMemPercent(50);
          case 2 -> p.gpus(2).gpuMemMiB(8000).gpuCores(10);
          default -> p.gpus(1);
        }
        c.addPod(p.obj());
        c.drain(0);
        Pod placed = c.pod("default", name).orElseThrow();
        if (placed.getSpec().getNodeName() == null) {
          out.add(name + " refused: " + c.outcome("default", name).orElseThrow().message());
          c.deletePod("default", name);
        } else {
          live.put(name, true);
          out.add(
              name
                  + " on "
                  + placed.getSpec().getNodeName()
                  + " "
                  + placed.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED));
        }
      }
    }
    return out;
  }

  @Test
  void reusedFilterVerdicts_placeAsFreshOnes() throws IOException {
    List<String> reused = churn(true);
    List<String> fresh = churn(false);
    assertThat(reused).containsExactlyElementsOf(fresh);
    assertThat(reused).anyMatch(l -> l.contains(" refused: ")).anyMatch(l -> l.contains(" on "));
  }

  @Test
  void devicesHeldByAnotherSchedulersPod_endAKeptVerdict() {
    try (InMemoryCluster c = cluster()) {
      c.addNode(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 1)).obj());
      c.addNode(MakeGpuNode.named("n2").gpus(FakeGpus.t4s("n2", 1)).obj());
      c.addPod(MakeGpuPod.named("q1").gpus(1).gpuMemMiB(10000).obj());
      c.drain(0);
      String first = c.pod("default", "q1").orElseThrow().getSpec().getNodeName();
      String other = first.equals("n1") ? "n2" : "n1";
      // The other node kept "fits" for this shape. Another scheduler's pod, annotated but not
      // bound yet, now holds 10000 MiB there: only the device index sees it.
      Pod foreign =
          new PodBuilder(
                  MakeGpuPod.named("foreign")
                      .gpus(1)
                      .gpuMemMiB(10000)
                      .annotation(Annotations.VGPU_NODE, other)
                      .annotation(
                          Annotations.VGPU_DEVICES_ALLOCATED,
                          FakeGpus.uuid(other, 0) + ",NVIDIA,10000,0:;")
                      .obj())
              .editSpec()
              .withSchedulerName("other-scheduler")
              .endSpec()
              .build();
      c.addPod(foreign);
      c.addPod(MakeGpuPod.named("q2").gpus(1).gpuMemMiB(10000).obj());
      c.drain(0);
      assertThat(c.outcome("default", "q2").orElseThrow().node()).isNull();
      assertThat(c.outcome("default", "q2").orElseThrow().message())
          .isEqualTo(
              "0/2 nodes are available: 2 CardInsufficientMemory. preemption: 0/2 nodes are"
                  + " available: 2 No preemption victims found for incoming pod..");
    }
  }
}
