package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.OpaqueFilter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Reuse of Filter verdicts for pods of one class on unchanged nodes. */
class FilterVerdictsTest {

  /** Nodes the counting plugin was called for, in order. */
  private final List<String> calls = new CopyOnWriteArrayList<>();

  /** Per-node state the plugin keeps outside the NodeInfo. */
  private final Map<String, String> external = new ConcurrentHashMap<>();

  private FrameworkHandle handle;

  /**
   * Rejects node {@code c}, and any node whose external state says "full"; the pod's class is its
   * {@code class} label ("none": no class); node "e" answers an error once.
   */
  private final class Counting implements FilterPlugin, FilterEquivalence {
    private boolean erred;

    @Override
    public String name() {
      return "Counting";
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
      calls.add(node.name());
      if (node.name().equals("e") && !erred) {
        erred = true;
        return Status.error("transient");
      }
      if (node.name().equals("c") || "full".equals(external.get(node.name()))) {
        return Status.unschedulable("Crowded");
      }
      return Status.success();
    }

    @Override
    public Object equivalenceClass(CycleState state, Pod pod) {
      String c = pod.getMetadata().getLabels().get("class");
      return "none".equals(c) ? null : c;
    }
  }

  private InMemoryCluster cluster(boolean withOpaque, String... nodes) {
    var registry = BuiltInPlugins.registry();
    Counting counting = new Counting();
    registry.register(
        PluginRegistration.of(
            "Counting",
            h -> {
              handle = h;
              return counting;
            }));
    registry.register(PluginRegistration.of("Opaque", h -> new OpaqueFilter("Opaque")));
    String yaml =
        "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n"
            + "- schedulerName: hami-scheduler\n  plugins:\n    filter:\n      enabled:\n"
            + "      - name: Counting\n"
            + (withOpaque ? "      - name: Opaque\n" : "");
    SchedulerConfiguration cfg = new ConfigLoader(registry).parse(yaml, "test");
    InMemoryCluster c = InMemoryCluster.builder(registry).config(cfg).recordEvents(false).build();
    for (String n : nodes) {
      c.addNode(MakeNode.named(n).capacity("8", "16Gi", 110).obj());
    }
    return c;
  }

  private String schedule(InMemoryCluster c, String name, String podClass) {
    calls.clear();
    c.addPod(MakePod.named(name).label("class", podClass).cpu("100m").obj());
    c.drain(0);
    return c.outcome("default", name).orElseThrow().node();
  }

  @Test
  void podOfSeenClass_isFilteredOnlyOnChangedNodes() {
    try (InMemoryCluster c = cluster(false, "a", "b", "c")) {
      String first = schedule(c, "p1", "small");
      assertThat(calls).containsExactlyInAnyOrder("a", "b", "c");
      assertThat(first).isIn("a", "b");

      String second = schedule(c, "p2", "small");
      // Only the node that took p1 changed; the others keep their verdicts, the rejection included.
      assertThat(calls).containsExactly(first);
      assertThat(second).isIn("a", "b");
    }
  }

  @Test
  void keptRejection_countsInTheFailureMessage() {
    try (InMemoryCluster c = cluster(false, "c")) {
      c.addPod(MakePod.named("p1").label("class", "small").obj());
      c.addPod(MakePod.named("p2").label("class", "small").obj());
      c.drain(0);
      assertThat(calls).containsExactly("c");
      assertThat(c.outcome("default", "p2").orElseThrow().message())
          .isEqualTo(
              "0/1 nodes are available: 1 Crowded. preemption: 0/1 nodes are available: 1 No"
                  + " preemption victims found for incoming pod..");
    }
  }

  static Stream<Arguments> evaluatedAfresh() {
    return Stream.of(
        Arguments.of(
            "another class", false, "small", MakePod.named("p2").label("class", "big").cpu("100m")),
        Arguments.of(
            "no class", false, "none", MakePod.named("p2").label("class", "none").cpu("100m")),
        Arguments.of(
            "a plugin that gives no class",
            true,
            "small",
            MakePod.named("p2").label("class", "small").cpu("100m")),
        Arguments.of(
            "other requests",
            false,
            "small",
            MakePod.named("p2").label("class", "small").cpu("200m")),
        Arguments.of(
            "a toleration",
            false,
            "small",
            MakePod.named("p2")
                .label("class", "small")
                .cpu("100m")
                .toleration("k", "Exists", "", "NoSchedule")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("evaluatedAfresh")
  void verdictsAreNotReusedFor(String what, boolean withOpaque, String firstClass, MakePod second) {
    try (InMemoryCluster c = cluster(withOpaque, "a", "b", "c")) {
      schedule(c, "p1", firstClass);
      calls.clear();
      c.addPod(second.obj());
      c.drain(0);
      assertThat(calls).containsExactlyInAnyOrder("a", "b", "c");
    }
  }

  @Test
  void changedNodeState_isFilteredAgain() {
    try (InMemoryCluster c = cluster(false, "a", "b", "c", "d")) {
      String first = schedule(c, "p1", "small");
      // "d" fills up outside the NodeInfo, and the plugin says so.
      external.put("d", "full");
      handle.nodeStateChanged("d");
      String second = schedule(c, "p2", "small");
      assertThat(calls).containsExactlyInAnyOrder(first, "d");
      assertThat(second).isNotEqualTo("d");
    }
  }

  @Test
  void errors_areNotKept() {
    try (InMemoryCluster c = cluster(false, "e")) {
      assertThat(schedule(c, "p1", "small")).isNull();
      assertThat(calls).containsExactly("e");
      c.deletePod("default", "p1");
      assertThat(schedule(c, "p2", "small")).isEqualTo("e");
      assertThat(calls).containsExactly("e");
    }
  }
}
