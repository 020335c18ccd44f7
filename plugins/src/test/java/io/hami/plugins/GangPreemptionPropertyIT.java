package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGroup;
import io.hami.framework.api.PodGroup;
import io.hami.framework.local.InMemoryCluster;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random arrivals of gangs and single pods of mixed priorities, deletions, new nodes and time on
 * the shipped profile (preemption and gangs on): no GPU is ever handed out twice, and a gang that
 * lost no member is bound whole or not at all.
 */
final class GangPreemptionPropertyIT {
  private static final int GPUS_PER_NODE = 4;

  private static Pod wholeCard(String name, int priority) {
    Pod p = MakeGpuPod.named(name).gpus(1).gpuMemPercent(100).obj();
    p.getSpec().setPriority(priority);
    return p;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4})
  void randomGangsAndPreemption_neverOverCommit_andNeverBindAPartialGang(long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    Map<String, List<String>> gangs = new LinkedHashMap<>();
    Set<String> broken = new HashSet<>();
    Set<String> alive = new HashSet<>();
    Map<String, String> gangOf = new HashMap<>();
    int nodes = 0;
    int next = 0;
    int preempted = 0;
    Set<String> boundWhole = new HashSet<>();
    try (InMemoryCluster c = GpuSchedulingTest.cluster()) {
      for (int step = 0; step < 150; step++) {
        int action = rng.nextInt(10);
        if (nodes == 0 || (action == 0 && nodes < 4)) {
          String n = "n" + nodes++;
          c.addNode(MakeGpuNode.named(n).gpus(FakeGpus.t4s(n, GPUS_PER_NODE)).obj());
        } else if (action <= 3) {
          String g = "g" + next++;
          int size = 2 + rng.nextInt(3);
          int priority = rng.nextBoolean() ? 0 : 100;
          c.putObject(PodGroup.gang("default", g, size));
          List<String> members = new ArrayList<>();
          for (int i = 0; i < size; i++) {
            String name = g + "-" + i;
            Pod p = wholeCard(name, priority);
            p.getSpec().setSchedulingGroup(new PodSchedulingGroup(g));
            c.addPod(p);
            members.add(name);
            alive.add(name);
            gangOf.put(name, g);
          }
          gangs.put(g, members);
        } else if (action <= 6) {
          String name = "s" + next++;
          int[] priorities = {0, 100, 1000};
          c.addPod(wholeCard(name, priorities[rng.nextInt(3)]));
          alive.add(name);
        } else if (action <= 8 && !alive.isEmpty()) {
          List<String> names = new ArrayList<>(alive);
          names.sort(null);
          String victim = names.get(rng.nextInt(names.size()));
          c.deletePod("default", victim);
          alive.remove(victim);
          String g = gangOf.get(victim);
          if (g != null) {
            broken.add(g);
          }
        } else {
          c.advance(Duration.ofSeconds(1 + rng.nextInt(5)));
        }
        c.drain();

        // Pods gone without the test deleting them were preempted: their gang is no longer whole.
        Set<String> present = new HashSet<>();
        Map<String, Integer> perNode = new HashMap<>();
        for (Pod p : c.pods()) {
          present.add(p.getMetadata().getName());
          String node = p.getSpec().getNodeName();
          if (node != null) {
            perNode.merge(node, 1, Integer::sum);
          }
        }
        for (String name : new ArrayList<>(alive)) {
          if (!present.contains(name)) {
            alive.remove(name);
            preempted++;
            String g = gangOf.get(name);
            if (g != null) {
              broken.add(g);
            }
          }
        }
        final int at = step;
        perNode.forEach(
            (node, n) ->
                assertThat(n)
                    .as("seed %d step %d: whole-card pods bound to %s", seed, at, node)
                    .isLessThanOrEqualTo(GPUS_PER_NODE));
        for (Map.Entry<String, List<String>> e : gangs.entrySet()) {
          if (broken.contains(e.getKey())) {
            continue;
          }
          long bound =
              e.getValue().stream()
                  .filter(
                      n ->
                          c.pod("default", n)
                              .map(p -> p.getSpec().getNodeName() != null)
                              .orElse(false))
                  .count();
          if (bound > 0) {
            boundWhole.add(e.getKey());
          }
          assertThat(bound == 0 || bound == e.getValue().size())
              .as(
                  "seed %d step %d: gang %s has %d of %d bound",
                  seed, at, e.getKey(), bound, e.getValue().size())
              .isTrue();
        }
      }
    }
    System.out.printf(
        "seed %d: %d gangs, %d bound whole, %d pods preempted%n",
        seed, gangs.size(), boundWhole.size(), preempted);
    // The run exercised both: gangs did bind, and preemption did evict.
    assertThat(boundWhole).isNotEmpty();
    assertThat(preempted).isPositive();
  }
}
