package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.ExactScorePlugin;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class SchedulerTest {
  private final List<String> calls = new CopyOnWriteArrayList<>();

  /** Scores fixed values per node name. */
  private record Fixed(String name, Map<String, Long> scores) implements ScorePlugin {
    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
      return scores.getOrDefault(node.name(), 0L);
    }
  }

  /** Raw scores outside 0..100, normalized by its extension. */
  private record Raw(String name, Map<String, Long> scores)
      implements ScorePlugin, ScoreExtensions {
    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
      return scores.getOrDefault(node.name(), 0L);
    }

    @Override
    public Status normalizeScore(CycleState state, Pod pod, NodeScores s) {
      s.normalize(MAX_NODE_SCORE, false);
      return Status.success();
    }
  }

  /** Rounded scores that tie, exact scores that do not. */
  private record Exact(String name, Map<String, Double> exact) implements ExactScorePlugin {
    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
      return Math.round(exact.getOrDefault(node.name(), 0.0));
    }

    @Override
    public double exactScore(CycleState state, Pod pod, NodeInfo node) {
      return exact.getOrDefault(node.name(), 0.0);
    }
  }

  private final class Recording implements FilterPlugin, ReservePlugin {
    private final String name;

    Recording(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
      calls.add("filter:" + name + ":" + node.name());
      return Status.success();
    }

    @Override
    public Status reserve(CycleState state, Pod pod, String nodeName) {
      calls.add("reserve:" + name);
      return "Rejecting".equals(name) ? Status.unschedulable("no room") : Status.success();
    }

    @Override
    public void unreserve(CycleState state, Pod pod, String nodeName) {
      calls.add("unreserve:" + name);
    }
  }

  private Registry registry() {
    Registry r = BuiltInPlugins.registry();
    r.register(PluginRegistration.of("PreferA", h -> new Fixed("PreferA", Map.of("a", 100L))));
    r.register(PluginRegistration.of("PreferB", h -> new Fixed("PreferB", Map.of("b", 60L))));
    r.register(PluginRegistration.of("RawC", h -> new Raw("RawC", Map.of("a", 10L, "c", 4000L))));
    r.register(
        PluginRegistration.of(
            "ExactBC", h -> new Exact("ExactBC", Map.of("a", 50.1, "b", 50.4, "c", 50.4))));
    r.register(PluginRegistration.of("First", h -> new Recording("First")));
    r.register(PluginRegistration.of("Second", h -> new Recording("Second")));
    r.register(PluginRegistration.of("Rejecting", h -> new Recording("Rejecting")));
    r.register(
        PluginRegistration.of(
            "Boom",
            h ->
                new FilterPlugin() {
                  @Override
                  public String name() {
                    return "Boom";
                  }

                  @Override
                  public Status filter(CycleState state, Pod pod, NodeInfo node) {
                    throw new IllegalStateException("device table corrupt");
                  }
                }));
    return r;
  }

  private InMemoryCluster cluster(String pluginsYaml) {
    return cluster("", pluginsYaml);
  }

  private InMemoryCluster cluster(String profileYaml, String pluginsYaml) {
    Registry r = registry();
    SchedulerConfiguration cfg =
        new ConfigLoader(r)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n"
                    + "- schedulerName: hami-scheduler\n"
                    + profileYaml
                    + "  plugins:\n"
                    + pluginsYaml,
                "test");
    InMemoryCluster c = InMemoryCluster.builder(r).config(cfg).build();
    for (String n : List.of("a", "b", "c")) {
      c.addNode(MakeNode.named(n).capacity("8", "16Gi", 110).obj());
    }
    return c;
  }

  private static String placed(InMemoryCluster c) {
    c.addPod(MakePod.named("p").obj());
    c.drain();
    return c.outcome("default", "p").orElseThrow().node();
  }

  @Test
  void weights_multiplyNormalizedScores() {
    String disableDefaults = "    score:\n      disabled:\n      - name: '*'\n      enabled:\n";
    try (InMemoryCluster c =
        cluster(
            disableDefaults
                + "      - {name: PreferA, weight: 1}\n      - {name: PreferB, weight: 2}\n")) {
      assertThat(placed(c)).isEqualTo("b");
    }
    try (InMemoryCluster c =
        cluster(
            disableDefaults
                + "      - {name: PreferA, weight: 3}\n      - {name: PreferB, weight: 2}\n")) {
      assertThat(placed(c)).isEqualTo("a");
    }
  }

  @Test
  void primaryScore_decidesAloneAndTheOthersBreakItsTies() {
    String scores = "    score:\n      disabled:\n      - name: '*'\n      enabled:\n";
    // Weighted, PreferB wins (120 against 100); with PreferA primary, a wins.
    try (InMemoryCluster c =
        cluster(
            "  primaryScore: PreferA\n",
            scores + "      - {name: PreferA, weight: 1}\n      - {name: PreferB, weight: 2}\n")) {
      assertThat(placed(c)).isEqualTo("a");
    }
    // ExactBC rounds a, b and c alike (50); unrounded, b and c lead and PreferB breaks their tie.
    try (InMemoryCluster c =
        cluster(
            "  primaryScore: ExactBC\n",
            scores + "      - {name: ExactBC, weight: 1}\n      - {name: PreferB, weight: 1}\n")) {
      assertThat(placed(c)).isEqualTo("b");
    }
    // Weighted, the same scores tie a and c at 50 and PreferB's 60 makes b win too; with PreferA
    // added at weight 2, a wins the weighted sum but not the exact order.
    try (InMemoryCluster c =
        cluster(
            "  primaryScore: ExactBC\n",
            scores + "      - {name: ExactBC, weight: 1}\n      - {name: PreferA, weight: 2}\n")) {
      assertThat(placed(c)).isIn("b", "c");
    }
  }

  @Test
  void primaryScores_decideInTurn_eachNextBreakingTheTiesBefore() {
    String scores = "    score:\n      disabled:\n      - name: '*'\n      enabled:\n";
    String plugins =
        scores
            + "      - {name: ExactBC, weight: 1}\n      - {name: RawC, weight: 1}\n"
            + "      - {name: PreferA, weight: 1}\n      - {name: PreferB, weight: 5}\n";
    record Case(String name, String primary, String want) {}
    List<Case> cases =
        List.of(
            // Weighted: PreferB's 300 decides.
            new Case("weighted sum", "", "b"),
            // ExactBC ties b and c; the weighted sum breaks it.
            new Case("one primary", "  primaryScore: ExactBC\n", "b"),
            // ExactBC ties b and c; RawC (c=100, b=0) breaks it before the weighted sum.
            new Case("second breaks the first's tie", "  primaryScore: [ExactBC, RawC]\n", "c"),
            // PreferA decides alone: the next ones only break its ties.
            new Case("first decides", "  primaryScore: [PreferA, ExactBC]\n", "a"));
    for (Case tc : cases) {
      try (InMemoryCluster c = cluster(tc.primary(), plugins)) {
        assertThat(placed(c)).as(tc.name()).isEqualTo(tc.want());
      }
    }
  }

  @Test
  void primaryScore_mustNameAnEnabledScorePlugin() {
    assertThatThrownBy(
            () ->
                cluster(
                    "  primaryScore: [PreferA, First]\n",
                    "    multiPoint:\n      enabled:\n      - name: First\n"))
        .hasMessageContaining("primaryScore")
        .hasMessageContaining("First")
        .hasMessageContaining("not a Score plugin enabled in this profile");
  }

  @Test
  void normalizeScore_rescalesRawScoresBeforeWeights() {
    // RawC gives a=10, c=4000 raw; normalized: a=0, c=100. PreferA weight 1 gives a=100.
    // With RawC weight 2, c wins 200 to 100.
    try (InMemoryCluster c =
        cluster(
            "    score:\n      disabled:\n      - name: '*'\n      enabled:\n"
                + "      - {name: PreferA, weight: 1}\n      - {name: RawC, weight: 2}\n")) {
      assertThat(placed(c)).isEqualTo("c");
    }
  }

  @Test
  void plugins_runInConfiguredOrder_andFailedReserveUnreservesAllInReverse() {
    try (InMemoryCluster c =
        cluster(
            "    filter:\n      enabled:\n      - name: Second\n      - name: First\n"
                + "    reserve:\n      enabled:\n      - name: First\n      - name: Rejecting\n      - name: Second\n")) {
      c.addPod(MakePod.named("p").obj());
      c.drain();
      List<String> filterCalls = new ArrayList<>();
      for (String call : calls) {
        if (call.startsWith("filter:") && call.endsWith(":a")) {
          filterCalls.add(call);
        }
      }
      assertThat(filterCalls).containsExactly("filter:Second:a", "filter:First:a");
      assertThat(calls.subList(calls.indexOf("reserve:First"), calls.size()))
          .containsExactly(
              "reserve:First",
              "reserve:Rejecting",
              "unreserve:Second",
              "unreserve:Rejecting",
              "unreserve:First");
      assertThat(c.outcome("default", "p").orElseThrow().message()).isEqualTo("no room");
      assertThat(c.scheduler().cache().podCount()).isZero();
    }
  }

  @Test
  void pluginException_becomesErrorStatusNamingThePlugin() {
    List<Status> failures = new CopyOnWriteArrayList<>();
    Registry r = registry();
    SchedulerConfiguration cfg =
        new ConfigLoader(r)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n"
                    + "- plugins:\n    filter:\n      enabled:\n      - name: Boom\n",
                "test");
    try (InMemoryCluster c =
        InMemoryCluster.builder(r)
            .config(cfg)
            .observer(
                new SchedulingObserver() {
                  @Override
                  public void failed(Pod pod, Status status, String message, long nanos) {
                    failures.add(status);
                  }
                })
            .build()) {
      c.addNode(MakeNode.named("a").capacity("8", "16Gi", 110).obj());
      c.addPod(MakePod.named("p").obj());
      c.drain(0);
      assertThat(failures).isNotEmpty();
      Status s = failures.get(0);
      assertThat(s.code()).isEqualTo(Code.ERROR);
      assertThat(s.plugin()).isEqualTo("Boom");
      assertThat(s.cause()).hasMessage("device table corrupt");
      assertThat(c.outcome("default", "p").orElseThrow().message())
          .isEqualTo("running Filter plugin Boom: device table corrupt");
      assertThat(c.scheduler().queue().backoffSize()).isEqualTo(1);
      var cond = c.pod("default", "p").orElseThrow().getStatus().getConditions().get(0);
      assertThat(cond.getReason()).isEqualTo("SchedulerError");
    }
  }

  @Test
  void nodeSelection_isInTheCycleStateFromReserveOn() {
    List<NodeSelection> seen = new CopyOnWriteArrayList<>();
    Registry r = registry();
    r.register(
        PluginRegistration.of(
            "Capture",
            h ->
                new ReservePlugin() {
                  @Override
                  public String name() {
                    return "Capture";
                  }

                  @Override
                  public Status reserve(CycleState state, Pod pod, String nodeName) {
                    seen.add(state.require(NodeSelection.KEY));
                    return Status.success();
                  }

                  @Override
                  public void unreserve(CycleState state, Pod pod, String nodeName) {}
                }));
    SchedulerConfiguration cfg =
        new ConfigLoader(r)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n- plugins:\n"
                    + "    score:\n      disabled:\n      - name: '*'\n      enabled:\n"
                    + "      - {name: PreferA, weight: 1}\n      - {name: PreferB, weight: 2}\n"
                    + "    reserve:\n      enabled:\n      - name: Capture\n",
                "test");
    try (InMemoryCluster c = InMemoryCluster.builder(r).config(cfg).build()) {
      for (String n : List.of("a", "b", "c")) {
        c.addNode(MakeNode.named(n).capacity("8", "16Gi", 110).obj());
      }
      c.addPod(MakePod.named("p").obj());
      c.addPod(MakePod.named("alone").nodeSelector("kubernetes.io/hostname", "c").obj());
      c.drain();
    }
    // PreferA gives a=100, PreferB b=60 (x2); b wins 120 to 100.
    assertThat(seen).hasSize(2);
    assertThat(seen.get(0))
        .isEqualTo(
            new NodeSelection(
                3,
                3,
                120L,
                List.of(
                    new NodeSelection.Candidate("b", 120),
                    new NodeSelection.Candidate("a", 100),
                    new NodeSelection.Candidate("c", 0))));
    assertThat(seen.get(1)).isEqualTo(new NodeSelection(3, 1, null, List.of()));
  }

  @Test
  void sampledNodes_rotateSoThatLoadSpreadsWithoutScoring() {
    Registry r = registry();
    SchedulerConfiguration cfg =
        new ConfigLoader(r)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\npercentageOfNodesToScore: 1\n"
                    + "profiles:\n- plugins:\n    score:\n      disabled:\n      - name: '*'\n",
                "test");
    try (InMemoryCluster c = InMemoryCluster.builder(r).config(cfg).build()) {
      for (int i = 0; i < 300; i++) {
        c.addNode(MakeNode.named(String.format("n%03d", i)).capacity("8", "16Gi", 110).obj());
      }
      for (int i = 0; i < 3; i++) {
        c.addPod(MakePod.named("p" + i).obj());
      }
      c.drain();
      // Each attempt checks 100 nodes from where the last stopped; ties go to the first.
      assertThat(c.outcomes().values())
          .extracting(o -> o.node())
          .containsExactly("n000", "n100", "n200");
    }
  }
}
