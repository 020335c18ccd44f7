package io.hami.framework.plugins.interpodaffinity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigException;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.DefaultPlugins;
import io.hami.framework.config.PluginRef;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.DefaultParallelizer;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class InterPodAffinityPluginTest {
  private static final String HOST = "kubernetes.io/hostname";
  private static final String ZONE = "topology.kubernetes.io/zone";

  // ---- fixtures

  private static MakeNode node(String name, @Nullable String zone) {
    MakeNode n = MakeNode.named(name);
    return zone == null ? n : n.label(ZONE, zone);
  }

  private static NodeInfo info(MakeNode n, Pod... pods) {
    NodeInfo info = NodeInfo.of(n.obj());
    for (Pod p : pods) {
      info = info.withPod(PodInfo.of(p));
    }
    return info;
  }

  private static Pod existing(String name, String node, String... labels) {
    return labelled(MakePod.named(name).nodeName(node), labels).obj();
  }

  private static MakePod labelled(MakePod p, String... labels) {
    for (int i = 0; i + 1 < labels.length; i += 2) {
      p.label(labels[i], labels[i + 1]);
    }
    return p;
  }

  private static Namespace namespace(String name, String... labels) {
    NamespaceBuilder b = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata();
    for (int i = 0; i + 1 < labels.length; i += 2) {
      b.editMetadata().addToLabels(labels[i], labels[i + 1]).endMetadata();
    }
    return b.build();
  }

  private static InterPodAffinityPlugin plugin(FakeHandle h, InterPodAffinityArgs args) {
    return (InterPodAffinityPlugin) InterPodAffinityPlugin.create(args, h);
  }

  private static InterPodAffinityPlugin plugin(FakeHandle h) {
    return plugin(h, InterPodAffinityArgs.defaults());
  }

  private static String verdict(Status s) {
    if (s.isSuccess()) {
      return "ok";
    }
    return switch (s.message()) {
      case InterPodAffinityPlugin.AFFINITY_REASON -> "affinity";
      case InterPodAffinityPlugin.ANTI_AFFINITY_REASON -> "anti";
      case InterPodAffinityPlugin.EXISTING_ANTI_AFFINITY_REASON -> "existing";
      default -> s.toString();
    };
  }

  /** PreFilter, then Filter on every node: node name to verdict, or {"*": pre-filter outcome}. */
  private static Map<String, String> filterAll(
      Pod pod, List<NodeInfo> nodes, Namespace... namespaces) {
    FakeHandle h = new FakeHandle().withNodes(nodes.toArray(NodeInfo[]::new));
    h.withObjects(namespaces);
    InterPodAffinityPlugin p = plugin(h);
    CycleState state = new CycleState();
    PreFilterResult r = p.preFilter(state, pod, Snapshot.of(nodes));
    Map<String, String> out = new LinkedHashMap<>();
    if (r.status().isSkip()) {
      out.put("*", "skip");
      return out;
    }
    if (!r.status().isSuccess()) {
      out.put("*", r.status().toString());
      return out;
    }
    for (NodeInfo n : nodes) {
      out.put(n.name(), verdict(p.filter(state, pod, n)));
    }
    return out;
  }

  // ---- Filter

  record FilterCase(
      String name, Pod pod, List<NodeInfo> nodes, List<Namespace> namespaces, String want) {
    FilterCase(String name, Pod pod, List<NodeInfo> nodes, String want) {
      this(name, pod, nodes, List.of(), want);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<FilterCase> filterCases() {
    return Stream.of(
        new FilterCase(
            "no terms anywhere: skipped",
            MakePod.named("p").label("app", "web").obj(),
            List.of(info(node("n1", "a"), existing("e", "n1", "app", "web"))),
            "{*=skip}"),
        new FilterCase(
            "required affinity by zone",
            MakePod.named("p").podAffinity(ZONE, "app", "db").obj(),
            List.of(
                info(node("n1", "a"), existing("db", "n1", "app", "db")),
                info(node("n2", "a")),
                info(node("n3", "b"))),
            "{n1=ok, n2=ok, n3=affinity}"),
        new FilterCase(
            "required affinity: node without the topology key",
            MakePod.named("p").podAffinity(ZONE, "app", "db").obj(),
            List.of(
                info(node("n1", "a"), existing("db", "n1", "app", "db")), info(node("n2", null))),
            "{n1=ok, n2=affinity}"),
        new FilterCase(
            "required affinity: all terms must match one pod",
            MakePod.named("p")
                .podAffinity(ZONE, "app", "db")
                .podAffinity(HOST, "tier", "data")
                .obj(),
            List.of(
                info(node("n1", "a"), existing("db", "n1", "app", "db")),
                info(node("n2", "a"), existing("d", "n2", "app", "db", "tier", "data"))),
            "{n1=affinity, n2=ok}"),
        new FilterCase(
            "required affinity matching no pod, nor the pod itself",
            MakePod.named("p").podAffinity(ZONE, "app", "db").obj(),
            List.of(info(node("n1", "a"), existing("x", "n1", "app", "web"))),
            "{n1=affinity}"),
        new FilterCase(
            "first pod of a series: matches its own term",
            MakePod.named("p").label("app", "db").podAffinity(ZONE, "app", "db").obj(),
            List.of(info(node("n1", "a")), info(node("n2", null))),
            "{n1=ok, n2=affinity}"),
        new FilterCase(
            "required anti-affinity matching no pod: skipped",
            MakePod.named("p").podAntiAffinity(HOST, "app", "web").obj(),
            List.of(info(node("n1", "a"), existing("d", "n1", "app", "db"))),
            "{*=skip}"),
        new FilterCase(
            "required anti-affinity by hostname",
            MakePod.named("p").podAntiAffinity(HOST, "app", "web").obj(),
            List.of(
                info(node("n1", "a"), existing("w", "n1", "app", "web")), info(node("n2", "a"))),
            "{n1=anti, n2=ok}"),
        new FilterCase(
            "required anti-affinity by zone; node without zone",
            MakePod.named("p").podAntiAffinity(ZONE, "app", "web").obj(),
            List.of(
                info(node("n1", "a"), existing("w", "n1", "app", "web")),
                info(node("n2", "a")),
                info(node("n3", "b")),
                info(node("n4", null))),
            "{n1=anti, n2=anti, n3=ok, n4=ok}"),
        new FilterCase(
            "existing pod's anti-affinity rejects the incoming pod",
            MakePod.named("p").label("app", "web").obj(),
            List.of(
                info(
                    node("n1", "a"),
                    MakePod.named("e").nodeName("n1").podAntiAffinity(HOST, "app", "web").obj()),
                info(node("n2", "a"))),
            "{n1=existing, n2=ok}"),
        new FilterCase(
            "existing pod's anti-affinity is limited to its own namespace",
            MakePod.named("p").label("app", "web").obj(),
            List.of(
                info(
                    node("n1", "a"),
                    MakePod.named("e")
                        .namespace("other")
                        .nodeName("n1")
                        .podAntiAffinity(HOST, "app", "web")
                        .obj())),
            "{*=skip}"),
        new FilterCase(
            "existing pod's anti-affinity with a namespace selector",
            MakePod.named("p").label("app", "web").obj(),
            List.of(
                info(
                    node("n1", "a"),
                    MakePod.named("e")
                        .namespace("other")
                        .nodeName("n1")
                        .podAntiAffinity(
                            MakePod.podAffinityTerm(HOST, "app", "web")
                                .withNamespaceSelector(
                                    new LabelSelectorBuilder()
                                        .addToMatchLabels("team", "blue")
                                        .build())
                                .build())
                        .obj())),
            List.of(namespace("default", "team", "blue")),
            "{n1=existing}"),
        new FilterCase(
            "explicit namespaces",
            MakePod.named("p")
                .podAffinity(
                    MakePod.podAffinityTerm(HOST, "app", "db").withNamespaces("data").build())
                .obj(),
            List.of(
                info(node("n1", "a"), existing("db", "n1", "app", "db")),
                info(
                    node("n2", "a"),
                    MakePod.named("db2")
                        .namespace("data")
                        .nodeName("n2")
                        .label("app", "db")
                        .obj())),
            "{n1=affinity, n2=ok}"),
        new FilterCase(
            "namespace selector resolved through the namespace lister",
            MakePod.named("p")
                .podAffinity(
                    MakePod.podAffinityTerm(HOST, "app", "db")
                        .withNamespaceSelector(
                            new LabelSelectorBuilder().addToMatchLabels("team", "blue").build())
                        .build())
                .obj(),
            List.of(
                info(
                    node("n1", "a"),
                    MakePod.named("db1")
                        .namespace("blue1")
                        .nodeName("n1")
                        .label("app", "db")
                        .obj()),
                info(
                    node("n2", "a"),
                    MakePod.named("db2").namespace("red").nodeName("n2").label("app", "db").obj())),
            List.of(namespace("blue1", "team", "blue"), namespace("red", "team", "red")),
            "{n1=ok, n2=affinity}"),
        new FilterCase(
            "empty namespace selector means all namespaces",
            MakePod.named("p")
                .podAffinity(
                    MakePod.podAffinityTerm(HOST, "app", "db")
                        .withNamespaceSelector(new LabelSelectorBuilder().build())
                        .build())
                .obj(),
            List.of(
                info(
                    node("n1", "a"),
                    MakePod.named("db").namespace("any").nodeName("n1").label("app", "db").obj()),
                info(node("n2", "a"))),
            "{n1=ok, n2=affinity}"),
        new FilterCase(
            "matchLabelKeys merged from the incoming pod's labels",
            MakePod.named("p")
                .label("version", "v2")
                .podAntiAffinity(
                    MakePod.podAffinityTerm(HOST, "app", "web")
                        .withMatchLabelKeys("version")
                        .build())
                .obj(),
            List.of(
                info(node("n1", "a"), existing("w1", "n1", "app", "web", "version", "v1")),
                info(node("n2", "a"), existing("w2", "n2", "app", "web", "version", "v2"))),
            "{n1=ok, n2=anti}"),
        new FilterCase(
            "mismatchLabelKeys merged from the incoming pod's labels",
            MakePod.named("p")
                .label("tenant", "t1")
                .podAffinity(
                    MakePod.podAffinityTerm(HOST, "app", "web")
                        .withMismatchLabelKeys("tenant")
                        .build())
                .obj(),
            List.of(
                info(node("n1", "a"), existing("w1", "n1", "app", "web", "tenant", "t1")),
                info(node("n2", "a"), existing("w2", "n2", "app", "web", "tenant", "t2"))),
            "{n1=affinity, n2=ok}"),
        new FilterCase(
            "existing pod's matchLabelKeys use the existing pod's labels",
            MakePod.named("p").label("app", "web").label("version", "v2").obj(),
            List.of(
                info(
                    node("n1", "a"),
                    MakePod.named("e1")
                        .nodeName("n1")
                        .label("version", "v1")
                        .podAntiAffinity(
                            MakePod.podAffinityTerm(HOST, "app", "web")
                                .withMatchLabelKeys("version")
                                .build())
                        .obj()),
                info(
                    node("n2", "a"),
                    MakePod.named("e2")
                        .nodeName("n2")
                        .label("version", "v2")
                        .podAntiAffinity(
                            MakePod.podAffinityTerm(HOST, "app", "web")
                                .withMatchLabelKeys("version")
                                .build())
                        .obj())),
            "{n1=ok, n2=existing}"),
        new FilterCase(
            "affinity is checked before anti-affinity",
            MakePod.named("p")
                .podAffinity(HOST, "app", "db")
                .podAntiAffinity(HOST, "app", "web")
                .obj(),
            List.of(
                info(node("n1", "a"), existing("w", "n1", "app", "web")),
                info(node("n2", "a"), existing("d", "n2", "app", "db")),
                info(
                    node("n3", "a"),
                    existing("d3", "n3", "app", "db"),
                    existing("w3", "n3", "app", "web"))),
            "{n1=affinity, n2=ok, n3=anti}"),
        new FilterCase(
            "invalid operator in the incoming pod's selector",
            MakePod.named("p")
                .podAffinity(
                    MakePod.podAffinityTerm(HOST, "app", "db")
                        .editLabelSelector()
                        .addNewMatchExpression()
                        .withKey("x")
                        .withOperator("Bogus")
                        .endMatchExpression()
                        .endLabelSelector()
                        .build())
                .obj(),
            List.of(info(node("n1", "a"))),
            "{*=UNSCHEDULABLE_AND_UNRESOLVABLE: invalid pod affinity:"
                + " spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
                + ".labelSelector.matchExpressions[0].operator: invalid value \"Bogus\": must be"
                + " one of In, NotIn, Exists, DoesNotExist}"),
        new FilterCase(
            "malformed term of an existing pod is left out",
            MakePod.named("p").label("app", "web").obj(),
            List.of(
                info(
                    node("n1", "a"),
                    MakePod.named("e")
                        .nodeName("n1")
                        .podAntiAffinity(MakePod.podAffinityTerm("", "app", "web").build())
                        .podAntiAffinity(HOST, "app", "web")
                        .obj()),
                info(
                    node("n2", "a"),
                    MakePod.named("bad")
                        .nodeName("n2")
                        .podAntiAffinity(MakePod.podAffinityTerm("", "app", "web").build())
                        .obj())),
            "{n1=existing, n2=ok}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("filterCases")
  void filter(FilterCase c) {
    Map<String, String> got =
        filterAll(c.pod(), c.nodes(), c.namespaces().toArray(Namespace[]::new));
    assertThat(got.toString()).isEqualTo(c.want());
  }

  @Test
  void filter_codesFollowKube() {
    NodeInfo n1 = info(node("n1", "a"), existing("w", "n1", "app", "web"));
    Pod affinity = MakePod.named("p").podAffinity(HOST, "app", "db").obj();
    Pod anti = MakePod.named("q").podAntiAffinity(HOST, "app", "web").obj();
    FakeHandle h = new FakeHandle().withNodes(n1);
    InterPodAffinityPlugin p = plugin(h);
    CycleState s1 = new CycleState();
    p.preFilter(s1, affinity, Snapshot.of(List.of(n1)));
    assertThat(p.filter(s1, affinity, n1).code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    CycleState s2 = new CycleState();
    p.preFilter(s2, anti, Snapshot.of(List.of(n1)));
    assertThat(p.filter(s2, anti, n1).code()).isEqualTo(Code.UNSCHEDULABLE);
  }

  // ---- AddPod / RemovePod

  private static AffinityState preFilterState(
      InterPodAffinityPlugin p, Pod pod, List<NodeInfo> nodes) {
    CycleState state = new CycleState();
    PreFilterResult r = p.preFilter(state, pod, Snapshot.of(nodes));
    assertThat(r.status().isSuccess()).as("PreFilter %s", r.status()).isTrue();
    return state.require(InterPodAffinityPlugin.PRE_FILTER);
  }

  private static void assertSameCounts(AffinityState got, AffinityState want) {
    assertThat(got.existingAntiAffinity).isEqualTo(want.existingAntiAffinity);
    assertThat(got.affinity).isEqualTo(want.affinity);
    assertThat(got.antiAffinity).isEqualTo(want.antiAffinity);
  }

  static Stream<Pod> podsToAdd() {
    return Stream.of(
        existing("db2", "n2", "app", "db"),
        existing("web2", "n2", "app", "web"),
        MakePod.named("hater")
            .nodeName("n2")
            .label("app", "db")
            .podAntiAffinity(ZONE, "role", "client")
            .obj(),
        existing("plain", "n2"));
  }

  @ParameterizedTest
  @MethodSource("podsToAdd")
  void addPodAndRemovePod_matchPreFilterOnTheChangedSnapshot(Pod added) {
    Pod pod =
        MakePod.named("p")
            .label("role", "client")
            .podAffinity(ZONE, "app", "db")
            .podAntiAffinity(HOST, "app", "web")
            .obj();
    NodeInfo n1 =
        info(
            node("n1", "a"),
            existing("db", "n1", "app", "db"),
            MakePod.named("guard").nodeName("n1").podAntiAffinity(HOST, "role", "client").obj());
    NodeInfo n2 = info(node("n2", "b"));
    NodeInfo n2With = n2.withPod(PodInfo.of(added));
    FakeHandle h = new FakeHandle().withNodes(n1, n2);
    InterPodAffinityPlugin p = plugin(h);

    CycleState state = new CycleState();
    p.preFilter(state, pod, Snapshot.of(List.of(n1, n2)));
    AffinityState before = state.require(InterPodAffinityPlugin.PRE_FILTER);
    CycleState copy = state.copy();
    assertThat(p.addPod(copy, pod, PodInfo.of(added), n2).isSuccess()).isTrue();
    AffinityState afterAdd = copy.require(InterPodAffinityPlugin.PRE_FILTER);
    assertSameCounts(afterAdd, preFilterState(p, pod, List.of(n1, n2With)));
    // The copy is deep: the original still holds the counts without the pod.
    assertSameCounts(before, preFilterState(p, pod, List.of(n1, n2)));

    assertThat(p.removePod(copy, pod, PodInfo.of(added), n2With).isSuccess()).isTrue();
    assertSameCounts(copy.require(InterPodAffinityPlugin.PRE_FILTER), before);
  }

  @Test
  void removePod_ofTheOnlyBlocker_letsTheNodePass() {
    Pod pod = MakePod.named("p").podAntiAffinity(HOST, "app", "web").obj();
    Pod web = existing("w", "n1", "app", "web");
    NodeInfo n1 = info(node("n1", "a"), web);
    InterPodAffinityPlugin p = plugin(new FakeHandle().withNodes(n1));
    CycleState state = new CycleState();
    p.preFilter(state, pod, Snapshot.of(List.of(n1)));
    assertThat(verdict(p.filter(state, pod, n1))).isEqualTo("anti");
    CycleState what = state.copy();
    p.removePod(what, pod, PodInfo.of(web), n1);
    assertThat(verdict(p.filter(what, pod, n1.withoutPod(PodInfo.of(web).uid())))).isEqualTo("ok");
    assertThat(verdict(p.filter(state, pod, n1))).isEqualTo("anti");
  }

  @Test
  void removePod_ofOneOfTwoAlikeBlockers_keepsTheNodeBlocked() {
    Pod pod = MakePod.named("p").label("app", "web").obj();
    Pod g1 = MakePod.named("g1").nodeName("n1").podAntiAffinity(HOST, "app", "web").obj();
    Pod g2 = MakePod.named("g2").nodeName("n1").podAntiAffinity(HOST, "app", "web").obj();
    NodeInfo n1 = info(node("n1", "a"), g1, g2);
    InterPodAffinityPlugin p = plugin(new FakeHandle().withNodes(n1));
    CycleState state = new CycleState();
    p.preFilter(state, pod, Snapshot.of(List.of(n1)));
    assertThat(
            state.require(InterPodAffinityPlugin.PRE_FILTER).existingAntiAffinity.get(HOST, "n1"))
        .isEqualTo(2);

    CycleState one = state.copy();
    p.removePod(one, pod, PodInfo.of(g1), n1);
    NodeInfo withoutOne = n1.withoutPod(PodInfo.of(g1).uid());
    assertThat(verdict(p.filter(one, pod, withoutOne))).isEqualTo("existing");
    p.removePod(one, pod, PodInfo.of(g2), withoutOne);
    assertThat(verdict(p.filter(one, pod, withoutOne.withoutPod(PodInfo.of(g2).uid()))))
        .isEqualTo("ok");
  }

  @Test
  void preFilter_countsInParallelPiecesAsItDoesSequentially() {
    // Counting reads labels and namespaces only, so one pod object may stand on many nodes.
    Pod db = existing("db", "n0", "app", "db");
    Pod web = existing("web", "n1", "app", "web");
    Pod guard = MakePod.named("g").nodeName("n2").podAntiAffinity(ZONE, "role", "client").obj();
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      MakeNode n = node("n" + i, "z" + (i % 7));
      nodes.add(
          switch (i % 5) {
            case 0 -> info(n, db);
            case 1 -> info(n, web);
            case 2 -> info(n, guard);
            default -> info(n);
          });
    }
    Pod pod =
        MakePod.named("p")
            .label("role", "client")
            .podAffinity(ZONE, "app", "db")
            .podAntiAffinity(HOST, "app", "web")
            .obj();
    AffinityState sequential = preFilterState(plugin(new FakeHandle()), pod, nodes);
    try (DefaultParallelizer par = new DefaultParallelizer(4)) {
      AffinityState parallel =
          preFilterState(plugin(new FakeHandle().withParallelizer(par)), pod, nodes);
      assertSameCounts(parallel, sequential);
    }
    assertThat(sequential.affinity.get(ZONE, "z0")).isEqualTo(600 / 7 + 1);
  }

  @Test
  void clusterSummary_followsReplacedNodeInfos() {
    NodeInfo n1 = info(node("n1", "a"));
    NodeInfo n2 = info(node("n2", "a"), existing("plain", "n2", "app", "web"));
    Pod guard = MakePod.named("g").nodeName("n2").podAntiAffinity(HOST, "app", "web").obj();
    Pod soft = MakePod.named("s").nodeName("n1").preferredPodAffinity(1, HOST, "a", "b").obj();
    ClusterSummary summary = new ClusterSummary();
    summary.refresh(List.of(n1, n2));
    assertThat(summary.anyRequiredAntiAffinity()).isFalse();
    assertThat(summary.anyAffinity()).isFalse();

    NodeInfo n2Guarded = n2.withPod(PodInfo.of(guard));
    summary.refresh(List.of(n1, n2Guarded));
    assertThat(summary.anyRequiredAntiAffinity()).isTrue();
    assertThat(summary.anyAffinity()).isTrue();

    NodeInfo n1Soft = n1.withPod(PodInfo.of(soft));
    summary.refresh(List.of(n1Soft, n2Guarded.withoutPod(PodInfo.of(guard).uid())));
    assertThat(summary.anyRequiredAntiAffinity()).isFalse();
    assertThat(summary.anyAffinity()).isTrue();

    summary.refresh(List.of(n1));
    assertThat(summary.anyAffinity()).isFalse();
  }

  // ---- Score

  private static Map<String, Long> scoreAll(
      InterPodAffinityArgs args, Pod pod, List<NodeInfo> nodes) {
    FakeHandle h = new FakeHandle().withNodes(nodes.toArray(NodeInfo[]::new));
    InterPodAffinityPlugin p = plugin(h, args);
    CycleState state = new CycleState();
    Status pre = p.preScore(state, pod, nodes);
    Map<String, Long> out = new LinkedHashMap<>();
    if (pre.isSkip()) {
      out.put("*", -1L);
      return out;
    }
    assertThat(pre.isSuccess()).isTrue();
    long[] raw = new long[nodes.size()];
    for (int i = 0; i < raw.length; i++) {
      raw[i] = p.score(state, pod, nodes.get(i));
    }
    NodeScores scores = new NodeScores(nodes, raw);
    assertThat(p.normalizeScore(state, pod, scores).isSuccess()).isTrue();
    for (int i = 0; i < raw.length; i++) {
      out.put(nodes.get(i).name(), scores.get(i));
    }
    return out;
  }

  record ScoreCase(
      String name, InterPodAffinityArgs args, Pod pod, List<NodeInfo> nodes, String want) {
    ScoreCase(String name, Pod pod, List<NodeInfo> nodes, String want) {
      this(name, InterPodAffinityArgs.defaults(), pod, nodes, want);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ScoreCase> scoreCases() {
    List<NodeInfo> zones =
        List.of(
            info(node("n1", "a"), existing("db", "n1", "app", "db")),
            info(node("n2", "a")),
            info(node("n3", "b"), existing("web", "n3", "app", "web")));
    Pod prefersRequired =
        MakePod.named("e").nodeName("n1").podAffinity(ZONE, "app", "client").obj();
    List<NodeInfo> withRequired =
        List.of(info(node("n1", "a"), prefersRequired), info(node("n2", "b")));
    Pod client = MakePod.named("c").label("app", "client").obj();
    return Stream.of(
        new ScoreCase("nothing to score: skipped", MakePod.named("p").obj(), zones, "{*=-1}"),
        new ScoreCase(
            "preferred affinity by zone",
            MakePod.named("p").preferredPodAffinity(10, ZONE, "app", "db").obj(),
            zones,
            "{n1=100, n2=100, n3=0}"),
        new ScoreCase(
            "preferred anti-affinity by zone",
            MakePod.named("p").preferredPodAntiAffinity(10, ZONE, "app", "db").obj(),
            zones,
            "{n1=0, n2=0, n3=100}"),
        new ScoreCase(
            "weights add up and are normalized min-max",
            MakePod.named("p")
                .preferredPodAffinity(30, ZONE, "app", "db")
                .preferredPodAffinity(10, HOST, "app", "web")
                .preferredPodAntiAffinity(20, HOST, "app", "db")
                .obj(),
            zones,
            // raw: n1 = 30 - 20 = 10, n2 = 30, n3 = 10
            "{n1=0, n2=100, n3=0}"),
        new ScoreCase(
            "existing pods' preferred terms",
            MakePod.named("p").label("app", "client").obj(),
            List.of(
                info(
                    node("n1", "a"),
                    MakePod.named("e")
                        .nodeName("n1")
                        .preferredPodAffinity(5, ZONE, "app", "client")
                        .obj()),
                info(node("n2", "a")),
                info(
                    node("n3", "b"),
                    MakePod.named("f")
                        .nodeName("n3")
                        .preferredPodAntiAffinity(5, ZONE, "app", "client")
                        .obj())),
            "{n1=100, n2=100, n3=0}"),
        new ScoreCase(
            "existing pods' required affinity weighted by hardPodAffinityWeight",
            client,
            withRequired,
            "{n1=100, n2=0}"),
        new ScoreCase(
            "hardPodAffinityWeight 0 leaves required terms out",
            new InterPodAffinityArgs(0, false),
            client,
            withRequired,
            "{n1=0, n2=0}"),
        new ScoreCase(
            "ignorePreferredTermsOfExistingPods skips when the pod has no preferred terms",
            new InterPodAffinityArgs(1, true),
            client,
            withRequired,
            "{*=-1}"),
        new ScoreCase(
            "ignorePreferredTermsOfExistingPods keeps the pod's own terms",
            new InterPodAffinityArgs(1, true),
            MakePod.named("p")
                .label("app", "client")
                .preferredPodAntiAffinity(10, ZONE, "app", "db")
                .obj(),
            List.of(
                info(
                    node("n1", "a"),
                    existing("db", "n1", "app", "db"),
                    MakePod.named("e")
                        .nodeName("n1")
                        .preferredPodAffinity(100, ZONE, "app", "client")
                        .obj()),
                info(node("n2", "b"))),
            "{n1=0, n2=100}"),
        new ScoreCase(
            "pods sharing labels or terms each count",
            MakePod.named("p")
                .label("app", "client")
                .preferredPodAffinity(10, HOST, "app", "db")
                .obj(),
            List.of(
                info(
                    node("n1", "a"),
                    existing("db1", "n1", "app", "db"),
                    existing("db2", "n1", "app", "db"),
                    existing("db3", "n1", "app", "db")),
                info(
                    node("n2", "a"),
                    existing("db4", "n2", "app", "db"),
                    existing("web", "n2", "app", "web")),
                info(
                    node("n3", "b"),
                    MakePod.named("e1")
                        .nodeName("n3")
                        .label("app", "e")
                        .preferredPodAntiAffinity(5, HOST, "app", "client")
                        .obj(),
                    MakePod.named("e2")
                        .nodeName("n3")
                        .label("app", "e")
                        .preferredPodAntiAffinity(5, HOST, "app", "client")
                        .obj()),
                info(node("n4", "b"))),
            // raw: n1 = 3 x 10, n2 = 10, n3 = 2 x -5, n4 = 0
            "{n1=100, n2=50, n3=0, n4=25}"),
        new ScoreCase(
            "nodes without labels are not scored",
            MakePod.named("p").preferredPodAffinity(10, ZONE, "app", "db").obj(),
            List.of(
                info(node("n1", "a"), existing("db", "n1", "app", "db")), info(node("n2", null))),
            "{n1=100, n2=0}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scoreCases")
  void score(ScoreCase c) {
    assertThat(scoreAll(c.args(), c.pod(), c.nodes()).toString()).isEqualTo(c.want());
  }

  // ---- args

  @Test
  void args_defaultsAreKubes() {
    assertThat(InterPodAffinityArgs.defaults()).isEqualTo(new InterPodAffinityArgs(1, false));
    FieldErrors errors = FieldErrors.at("args");
    InterPodAffinityArgs.defaults().validate(errors);
    new InterPodAffinityArgs(0, true).validate(errors);
    new InterPodAffinityArgs(100, false).validate(errors);
    assertThat(errors.isEmpty()).isTrue();
  }

  @Test
  void args_hardPodAffinityWeightOutOfRange() {
    FieldErrors errors = FieldErrors.at("args");
    new InterPodAffinityArgs(-1, false).validate(errors);
    new InterPodAffinityArgs(101, false).validate(errors);
    assertThat(errors.messages())
        .containsExactly(
            "args.hardPodAffinityWeight: invalid value -1: not in valid range [0-100]",
            "args.hardPodAffinityWeight: invalid value 101: not in valid range [0-100]");
  }

  private static final String CONFIG =
      "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n- pluginConfig:\n"
          + "  - name: InterPodAffinity\n    args:\n";

  @Test
  void args_fromConfiguration_mergeOverDefaults() {
    ConfigLoader loader = new ConfigLoader(BuiltInPlugins.registry());
    SchedulerConfiguration c =
        loader.parse(CONFIG + "      ignorePreferredTermsOfExistingPods: true\n", "t");
    assertThat(c.profiles().get(0).pluginArgs().get(InterPodAffinityPlugin.NAME))
        .isEqualTo(new InterPodAffinityArgs(1, true));
  }

  @Test
  void args_fromConfiguration_reportTheFieldPath() {
    ConfigLoader loader = new ConfigLoader(BuiltInPlugins.registry());
    assertThatThrownBy(() -> loader.parse(CONFIG + "      hardPodAffinityWeight: 101\n", "t"))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.errors())
                    .containsExactly(
                        "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: invalid value"
                            + " 101: not in valid range [0-100]"));
  }

  @Test
  void defaultProfile_runsInterPodAffinityAfterNodeResourcesFitWithWeight2() {
    List<String> names = DefaultPlugins.MULTI_POINT.stream().map(PluginRef::name).toList();
    assertThat(names.indexOf(InterPodAffinityPlugin.NAME))
        .isGreaterThan(names.indexOf(DefaultPlugins.NODE_RESOURCES_FIT));
    assertThat(DefaultPlugins.MULTI_POINT).contains(PluginRef.of(InterPodAffinityPlugin.NAME, 2));
  }

  // ---- queueing hints

  private static final Pod WANTS_DB =
      MakePod.named("p").label("app", "client").podAffinity(ZONE, "app", "db").obj();
  private static final Pod AVOIDS_WEB =
      MakePod.named("p").label("app", "client").podAntiAffinity(HOST, "app", "web").obj();
  private static final Pod PLAIN = MakePod.named("p").label("app", "client").obj();

  record HintCase(
      String name, Pod pod, @Nullable Object oldObj, @Nullable Object newObj, QueueingHint want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<HintCase> podHints() {
    Pod db = existing("db", "n1", "app", "db");
    Pod web = existing("web", "n1", "app", "web");
    Pod other = existing("o", "n1", "app", "other");
    Pod guard = MakePod.named("g").nodeName("n1").podAntiAffinity(HOST, "app", "client").obj();
    QueueingHint q = QueueingHint.QUEUE;
    QueueingHint s = QueueingHint.SKIP;
    return Stream.of(
        new HintCase("added pod matches required affinity", WANTS_DB, null, db, q),
        new HintCase("added pod matches nothing", WANTS_DB, null, other, s),
        new HintCase("added pod cannot lift anti-affinity", AVOIDS_WEB, null, web, s),
        new HintCase("deleted pod matched anti-affinity", AVOIDS_WEB, web, null, q),
        new HintCase("deleted pod unrelated", AVOIDS_WEB, other, null, s),
        new HintCase("deleted pod's anti-affinity selected the pod", PLAIN, guard, null, q),
        new HintCase("deleted pod without terms, pod without terms", PLAIN, other, null, s),
        new HintCase("relabelled out of the anti-affinity term", AVOIDS_WEB, web, other, q),
        new HintCase("relabelled into the affinity term", WANTS_DB, other, db, q),
        new HintCase("relabelled, still matching", WANTS_DB, db, db, s));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("podHints")
  void hint_assignedPodChange(HintCase c) {
    InterPodAffinityPlugin p = plugin(new FakeHandle());
    assertThat(p.hints().afterPodChange(c.pod(), (Pod) c.oldObj(), (Pod) c.newObj()))
        .isEqualTo(c.want());
  }

  static Stream<HintCase> nodeHints() {
    Node zoned = node("n9", "a").obj();
    Node bare = node("n9", null).obj();
    Node zoneB = node("n9", "b").obj();
    Node extraLabel = node("n9", "a").label("disk", "ssd").obj();
    QueueingHint q = QueueingHint.QUEUE;
    QueueingHint s = QueueingHint.SKIP;
    return Stream.of(
        new HintCase("node added with the affinity key", WANTS_DB, null, zoned, q),
        new HintCase("node added without the affinity key", WANTS_DB, null, bare, s),
        new HintCase("node added: anti-affinity may not apply there", AVOIDS_WEB, null, bare, q),
        new HintCase("node added: existing anti-affinity may not apply", PLAIN, null, bare, q),
        new HintCase("affinity key appeared", WANTS_DB, bare, zoned, q),
        new HintCase("affinity key changed value", WANTS_DB, zoned, zoneB, q),
        new HintCase("unrelated label added", WANTS_DB, zoned, extraLabel, s),
        new HintCase("label added cannot lift anti-affinity", AVOIDS_WEB, bare, zoned, s),
        new HintCase("node left a zone: anti-affinity may lift", PLAIN, zoned, bare, q),
        new HintCase("affinity key removed", WANTS_DB, zoned, bare, s));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodeHints")
  void hint_nodeChange(HintCase c) {
    InterPodAffinityPlugin p = plugin(new FakeHandle());
    assertThat(p.hints().afterNodeChange(c.pod(), (Node) c.oldObj(), (Node) c.newObj()))
        .isEqualTo(c.want());
  }

  @Test
  void hint_namespaceChange() {
    InterPodAffinityPlugin p = plugin(new FakeHandle());
    Pod selecting =
        MakePod.named("s")
            .podAffinity(
                MakePod.podAffinityTerm(HOST, "app", "db")
                    .withNamespaceSelector(
                        new LabelSelectorBuilder().addToMatchLabels("team", "blue").build())
                    .build())
            .obj();
    Namespace other = namespace("other", "team", "blue");
    Namespace own = namespace("default", "team", "blue");
    assertThat(p.hints().afterNamespaceChange(selecting, null, other))
        .isEqualTo(QueueingHint.QUEUE);
    assertThat(p.hints().afterNamespaceChange(WANTS_DB, null, other)).isEqualTo(QueueingHint.SKIP);
    assertThat(p.hints().afterNamespaceChange(PLAIN, other, own)).isEqualTo(QueueingHint.QUEUE);
  }

  @Test
  void eventsToRegister_coverPodsNodesAndNamespaces() {
    List<String> labels = new ArrayList<>();
    plugin(new FakeHandle()).eventsToRegister().forEach(e -> labels.add(e.event().label()));
    assertThat(labels)
        .containsExactly(
            "ASSIGNED_POD/[ADD, DELETE, UPDATE_POD_LABEL]",
            "NODE/[ADD, UPDATE_NODE_LABEL]",
            "NAMESPACE/[ADD, UPDATE_OTHER]");
  }
}
