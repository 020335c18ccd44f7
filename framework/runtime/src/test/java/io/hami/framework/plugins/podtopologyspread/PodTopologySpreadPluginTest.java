package io.hami.framework.plugins.podtopologyspread;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.NodeInfo;
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
import io.hami.framework.plugins.helper.Selector;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.PluginHarness;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PodTopologySpreadPluginTest {
  private static final String ZONE = "topology.kubernetes.io/zone";
  private static final String HOST = "kubernetes.io/hostname";
  private static final String HARD = "DoNotSchedule";
  private static final String SOFT = "ScheduleAnyway";

  // ---- fixtures

  private static NodeInfo node(MakeNode n, Pod... pods) {
    NodeInfo info = NodeInfo.of(n.obj());
    for (Pod p : pods) {
      info = info.withPod(PodInfo.of(p));
    }
    return info;
  }

  private static NodeInfo zoned(String name, String zone, Pod... pods) {
    return node(MakeNode.named(name).zone(zone), pods);
  }

  /** A pod bound somewhere, labelled {@code app=<app>}. */
  private static Pod web(String name) {
    return MakePod.named(name).label("app", "web").obj();
  }

  private static PodTopologySpreadPlugin plugin(FakeHandle handle, PodTopologySpreadArgs args) {
    return (PodTopologySpreadPlugin) PodTopologySpreadPlugin.create(args, handle);
  }

  private static PodTopologySpreadPlugin listPlugin(FakeHandle handle) {
    return plugin(handle, new PodTopologySpreadArgs(List.of(), "List"));
  }

  private static PluginHarness.Result run(
      PodTopologySpreadPlugin p, FakeHandle handle, Pod pod, List<NodeInfo> nodes) {
    handle.withSnapshot(Snapshot.of(nodes));
    return PluginHarness.create().plugin(p, 2).snapshot(Snapshot.of(nodes)).run(pod);
  }

  private static TopologySpreadConstraintBuilder zoneConstraint(int maxSkew, String action) {
    return new TopologySpreadConstraintBuilder()
        .withMaxSkew(maxSkew)
        .withTopologyKey(ZONE)
        .withWhenUnsatisfiable(action)
        .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels("app", "web").build());
  }

  // ---- Filter

  record FilterCase(
      String name,
      Pod pod,
      List<NodeInfo> nodes,
      List<String> wantFeasible,
      Map<String, Code> wantRejected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static MakePod incoming() {
    return MakePod.named("incoming").label("app", "web");
  }

  private static Map<String, Code> rejected(Object... nameCode) {
    Map<String, Code> m = new LinkedHashMap<>();
    for (int i = 0; i < nameCode.length; i += 2) {
      m.put((String) nameCode[i], (Code) nameCode[i + 1]);
    }
    return m;
  }

  static Stream<FilterCase> filterCases() {
    Code no = Code.UNSCHEDULABLE;
    Code never = Code.UNSCHEDULABLE_AND_UNRESOLVABLE;
    Pod zone1 = incoming().topologySpread(1, ZONE, HARD, "app", "web").obj();
    NodeInfo poolC = node(MakeNode.named("c1").zone("c"));
    return Stream.of(
        new FilterCase(
            "maxSkew 1 over zones: only the empty zone fits",
            zone1,
            List.of(zoned("a1", "a", web("w1")), zoned("b1", "b", web("w2")), zoned("c1", "c")),
            List.of("c1"),
            rejected("a1", no, "b1", no)),
        new FilterCase(
            "balanced zones: every zone fits",
            zone1,
            List.of(zoned("a1", "a", web("w1")), zoned("b1", "b", web("w2"))),
            List.of("a1", "b1"),
            Map.of()),
        new FilterCase(
            "node without the topology key is unresolvable",
            zone1,
            List.of(zoned("a1", "a"), node(MakeNode.named("x"))),
            List.of("a1"),
            rejected("x", never)),
        new FilterCase(
            "matching pods of another namespace do not count",
            zone1,
            List.of(
                zoned(
                    "a1",
                    "a",
                    MakePod.named("o1").namespace("other").label("app", "web").obj(),
                    MakePod.named("o2").namespace("other").label("app", "web").obj()),
                zoned("b1", "b")),
            List.of("a1", "b1"),
            Map.of()),
        new FilterCase(
            "terminating pods do not count",
            zone1,
            List.of(
                zoned(
                    "a1",
                    "a",
                    MakePod.named("t1").label("app", "web").terminating().obj(),
                    MakePod.named("t2").label("app", "web").terminating().obj()),
                zoned("b1", "b")),
            List.of("a1", "b1"),
            Map.of()),
        new FilterCase(
            "a pod its own selector does not match adds no skew",
            MakePod.named("incoming")
                .label("app", "db")
                .topologySpread(1, ZONE, HARD, "app", "web")
                .obj(),
            List.of(zoned("a1", "a", web("w1")), zoned("b1", "b")),
            List.of("a1", "b1"),
            Map.of()),
        new FilterCase(
            "hostname maxSkew 1",
            incoming().topologySpread(1, HOST, HARD, "app", "web").obj(),
            List.of(node(MakeNode.named("n1"), web("w1")), node(MakeNode.named("n2"))),
            List.of("n2"),
            rejected("n1", no)),
        new FilterCase(
            "ScheduleAnyway only: Filter is skipped",
            incoming().topologySpread(1, ZONE, SOFT, "app", "web").obj(),
            List.of(zoned("a1", "a", web("w1"), web("w2")), node(MakeNode.named("x"))),
            List.of("a1", "x"),
            Map.of()),
        new FilterCase(
            "minDomains above the domain count: global minimum is 0",
            incoming().topologySpread(zoneConstraint(1, HARD).withMinDomains(3).build()).obj(),
            List.of(zoned("a1", "a", web("w1")), zoned("b1", "b", web("w2"))),
            List.of(),
            rejected("a1", no, "b1", no)),
        new FilterCase(
            "minDomains reached: the real global minimum",
            incoming().topologySpread(zoneConstraint(1, HARD).withMinDomains(2).build()).obj(),
            List.of(zoned("a1", "a", web("w1")), zoned("b1", "b", web("w2"))),
            List.of("a1", "b1"),
            Map.of()),
        new FilterCase(
            "nodeAffinityPolicy Honor (default): a zone the pod cannot go to is no domain",
            incoming().nodeSelector("pool", "x").topologySpread(1, ZONE, HARD, "app", "web").obj(),
            List.of(
                node(MakeNode.named("a1").zone("a").label("pool", "x"), web("w1")),
                node(MakeNode.named("b1").zone("b").label("pool", "x"), web("w2")),
                poolC),
            List.of("a1", "b1", "c1"),
            Map.of()),
        new FilterCase(
            "nodeAffinityPolicy Ignore: that zone's 0 is the global minimum",
            incoming()
                .nodeSelector("pool", "x")
                .topologySpread(zoneConstraint(1, HARD).withNodeAffinityPolicy("Ignore").build())
                .obj(),
            List.of(
                node(MakeNode.named("a1").zone("a").label("pool", "x"), web("w1")),
                node(MakeNode.named("b1").zone("b").label("pool", "x"), web("w2")),
                poolC),
            List.of("c1"),
            rejected("a1", no, "b1", no)),
        new FilterCase(
            "nodeTaintsPolicy Ignore (default): a tainted zone's 0 is the global minimum",
            zone1,
            List.of(
                zoned("a1", "a", web("w1")),
                zoned("b1", "b", web("w2")),
                node(MakeNode.named("c1").zone("c").taint("dedicated", "x", "NoSchedule"))),
            List.of("c1"),
            rejected("a1", no, "b1", no)),
        new FilterCase(
            "nodeTaintsPolicy Honor: an untolerated tainted zone is no domain",
            incoming()
                .topologySpread(zoneConstraint(1, HARD).withNodeTaintsPolicy("Honor").build())
                .obj(),
            List.of(
                zoned("a1", "a", web("w1")),
                zoned("b1", "b", web("w2")),
                node(MakeNode.named("c1").zone("c").taint("dedicated", "x", "NoSchedule"))),
            List.of("a1", "b1", "c1"),
            Map.of()),
        new FilterCase(
            "nodeTaintsPolicy Honor: a tolerated taint keeps the zone",
            incoming()
                .toleration("dedicated", "Equal", "x", "NoSchedule")
                .topologySpread(zoneConstraint(1, HARD).withNodeTaintsPolicy("Honor").build())
                .obj(),
            List.of(
                zoned("a1", "a", web("w1")),
                zoned("b1", "b", web("w2")),
                node(MakeNode.named("c1").zone("c").taint("dedicated", "x", "NoSchedule"))),
            List.of("c1"),
            rejected("a1", no, "b1", no)),
        new FilterCase(
            "matchLabelKeys: only pods of the same version count",
            incoming()
                .label("version", "v2")
                .topologySpread(zoneConstraint(1, HARD).withMatchLabelKeys("version").build())
                .obj(),
            List.of(
                zoned(
                    "a1",
                    "a",
                    MakePod.named("old1").label("app", "web").label("version", "v1").obj(),
                    MakePod.named("old2").label("app", "web").label("version", "v1").obj()),
                zoned("b1", "b")),
            List.of("a1", "b1"),
            Map.of()),
        new FilterCase(
            "without matchLabelKeys every version counts",
            incoming().label("version", "v2").topologySpread(1, ZONE, HARD, "app", "web").obj(),
            List.of(
                zoned(
                    "a1",
                    "a",
                    MakePod.named("old1").label("app", "web").label("version", "v1").obj(),
                    MakePod.named("old2").label("app", "web").label("version", "v1").obj()),
                zoned("b1", "b")),
            List.of("b1"),
            rejected("a1", no)),
        new FilterCase(
            "two constraints: zone and hostname must both hold",
            incoming()
                .topologySpread(1, ZONE, HARD, "app", "web")
                .topologySpread(1, HOST, HARD, "app", "web")
                .obj(),
            List.of(
                zoned("a1", "a", web("w1")), zoned("a2", "a"), zoned("b1", "b"), zoned("b2", "b")),
            List.of("b1", "b2"),
            rejected("a1", no, "a2", no)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("filterCases")
  void filter(FilterCase c) {
    FakeHandle handle = new FakeHandle();
    PluginHarness.Result r = run(listPlugin(handle), handle, c.pod(), c.nodes());
    assertThat(r.preFilterStatus().isSuccess()).isTrue();
    assertThat(r.feasible()).containsExactlyElementsOf(c.wantFeasible());
    Map<String, Code> codes = new LinkedHashMap<>();
    r.filterStatuses().forEach((n, s) -> codes.put(n, s.code()));
    assertThat(codes).containsExactlyInAnyOrderEntriesOf(c.wantRejected());
    r.filterStatuses()
        .values()
        .forEach(
            s ->
                assertThat(s.reasons())
                    .containsExactly(
                        s.code() == Code.UNSCHEDULABLE
                            ? PodTopologySpreadPlugin.REASON
                            : PodTopologySpreadPlugin.REASON_MISSING_LABEL));
  }

  @Test
  void preFilter_skipsPodsWithoutConstraintsOrApplicableDefaults() {
    FakeHandle handle = new FakeHandle();
    Pod plain = MakePod.named("p").label("app", "web").obj();
    Snapshot s = Snapshot.of(List.of(zoned("a1", "a")));
    assertThat(listPlugin(handle).preFilter(new CycleState(), plain, s).status().isSkip()).isTrue();
    // System defaults are ScheduleAnyway only: nothing to filter even when a Service selects it.
    handle.withObjects(service("web", "app", "web"));
    assertThat(
            plugin(handle, PodTopologySpreadArgs.defaults()).preFilter(new CycleState(), plain, s))
        .extracting(PreFilterResult::status)
        .matches(Status::isSkip);
  }

  @Test
  void preFilter_malformedConstraintIsAnErrorNamingTheField() {
    FakeHandle handle = new FakeHandle();
    Pod bad =
        MakePod.named("p")
            .topologySpread(
                new TopologySpreadConstraintBuilder()
                    .withMaxSkew(1)
                    .withTopologyKey(ZONE)
                    .withWhenUnsatisfiable(HARD)
                    .withNewLabelSelector()
                    .addNewMatchExpression()
                    .withKey("app")
                    .withOperator("Like")
                    .endMatchExpression()
                    .endLabelSelector()
                    .build())
            .obj();
    Status s =
        listPlugin(handle)
            .preFilter(new CycleState(), bad, Snapshot.of(List.of(zoned("a1", "a"))))
            .status();
    assertThat(s.code()).isEqualTo(Code.ERROR);
    assertThat(s.message())
        .isEqualTo(
            "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].operator:"
                + " invalid value \"Like\": must be one of In, NotIn, Exists, DoesNotExist");
  }

  // ---- default constraints

  private static HasMetadata service(String name, String key, String value) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .addToSelector(key, value)
        .endSpec()
        .build();
  }

  private static HasMetadata replicaSet(String name, String key, String value) {
    return new ReplicaSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .addToMatchLabels(key, value)
        .endSelector()
        .endSpec()
        .build();
  }

  @Test
  void listDefaults_useTheReplicaSetSelectorOfTheOwner() {
    FakeHandle handle = new FakeHandle().withObjects(replicaSet("rs1", "app", "web"));
    PodTopologySpreadArgs args =
        new PodTopologySpreadArgs(
            List.of(
                new TopologySpreadConstraintBuilder()
                    .withMaxSkew(1)
                    .withTopologyKey(ZONE)
                    .withWhenUnsatisfiable(HARD)
                    .build()),
            "List");
    List<NodeInfo> nodes = List.of(zoned("a1", "a", web("w1")), zoned("b1", "b"));
    Pod owned =
        MakePod.named("p").label("app", "web").controlledBy("apps/v1", "ReplicaSet", "rs1").obj();
    assertThat(run(plugin(handle, args), handle, owned, nodes).feasible()).containsExactly("b1");
    // Not owned and no Service: no default spreading.
    Pod loose = MakePod.named("q").label("app", "web").obj();
    assertThat(run(plugin(handle, args), handle, loose, nodes).feasible())
        .containsExactly("a1", "b1");
    // Its own constraints replace the defaults.
    Pod own =
        MakePod.named("r")
            .label("app", "web")
            .controlledBy("apps/v1", "ReplicaSet", "rs1")
            .topologySpread(5, ZONE, HARD, "app", "web")
            .obj();
    assertThat(run(plugin(handle, args), handle, own, nodes).feasible())
        .containsExactly("a1", "b1");
  }

  @Test
  void systemDefaults_spreadPodsAServiceSelects() {
    FakeHandle handle = new FakeHandle().withObjects(service("web", "app", "web"));
    PodTopologySpreadPlugin p = plugin(handle, PodTopologySpreadArgs.defaults());
    List<NodeInfo> nodes =
        List.of(
            zoned("a1", "a", web("w1"), web("w2")),
            zoned("a2", "a"),
            zoned("b1", "b"),
            // No zone: still spread by hostname under the system defaults.
            node(MakeNode.named("x")));
    PluginHarness.Result r = run(p, handle, MakePod.named("p").label("app", "web").obj(), nodes);
    assertThat(r.scores().get("b1")).isGreaterThan(r.scores().get("a2"));
    assertThat(r.scores().get("a2")).isGreaterThan(r.scores().get("a1"));
    assertThat(r.scores().get("x")).isPositive();
    // A pod no Service or controller selects gets no spreading.
    PluginHarness.Result none = run(p, handle, MakePod.named("q").label("app", "db").obj(), nodes);
    assertThat(none.scores().values()).containsOnly(0L);
  }

  @Test
  void defaultSelector_mergesServicesAndOwner() {
    FakeHandle handle =
        new FakeHandle()
            .withObjects(
                service("web", "app", "web"),
                service("tier", "tier", "front"),
                service("other", "app", "db"),
                replicaSet("rs1", "pod-template-hash", "abc"));
    DefaultSelectors ds = new DefaultSelectors(handle);
    Pod pod =
        MakePod.named("p")
            .label("app", "web")
            .label("tier", "front")
            .label("pod-template-hash", "abc")
            .controlledBy("apps/v1", "ReplicaSet", "rs1")
            .obj();
    Selector s = ds.of(pod);
    assertThat(s.matches(Map.of("app", "web", "tier", "front", "pod-template-hash", "abc")))
        .isTrue();
    assertThat(s.matches(Map.of("app", "web", "tier", "front"))).isFalse();
    assertThat(s.matches(Map.of("app", "web", "pod-template-hash", "abc"))).isFalse();
  }

  // ---- Score

  @Test
  void score_fewerMatchingPodsInTheZoneRankHigher() {
    FakeHandle handle = new FakeHandle();
    Pod pod = incoming().topologySpread(1, ZONE, SOFT, "app", "web").obj();
    List<NodeInfo> nodes =
        List.of(
            zoned("a1", "a", web("w1"), web("w2")),
            zoned("b1", "b", web("w3")),
            zoned("c1", "c"),
            node(MakeNode.named("x")));
    PluginHarness.Result r = run(listPlugin(handle), handle, pod, nodes);
    // Raw: count * ln(3 + 2) -> 3, 2, 0; inverted over max 3; x lacks the key: 0. Weight 2.
    assertThat(r.scores())
        .containsExactlyInAnyOrderEntriesOf(Map.of("a1", 0L, "b1", 66L, "c1", 200L, "x", 0L));
    assertThat(r.selected()).isEqualTo("c1");
  }

  @Test
  void score_countsPodsOnNodesFilteredOutInTheSameDomain() {
    FakeHandle handle = new FakeHandle();
    Pod pod = incoming().topologySpread(1, ZONE, SOFT, "app", "web").obj();
    NodeInfo full = zoned("a0", "a", web("w1"), web("w2"));
    List<NodeInfo> feasible = List.of(zoned("a1", "a"), zoned("b1", "b"));
    List<NodeInfo> all = new ArrayList<>(feasible);
    all.add(full);
    handle.withSnapshot(Snapshot.of(all));
    PodTopologySpreadPlugin p = listPlugin(handle);
    CycleState state = new CycleState();
    assertThat(p.preScore(state, pod, feasible).isSuccess()).isTrue();
    assertThat(p.score(state, pod, feasible.get(0)))
        .isGreaterThan(p.score(state, pod, feasible.get(1)));
  }

  // ---- PreFilterExtensions

  private static PreFilterState preFilter(
      PodTopologySpreadPlugin p, Pod pod, List<NodeInfo> nodes) {
    CycleState state = new CycleState();
    assertThat(p.preFilter(state, pod, Snapshot.of(nodes)).status().isSuccess()).isTrue();
    return state.require(PodTopologySpreadPlugin.PRE_FILTER);
  }

  private static void assertSameCounts(PreFilterState got, PreFilterState want, String... domains) {
    for (int i = 0; i < want.constraints.size(); i++) {
      assertThat(got.domains(i)).as("domains of %s", i).isEqualTo(want.domains(i));
      assertThat(got.minMatch(i)).as("global minimum of %s", i).isEqualTo(want.minMatch(i));
      for (String d : domains) {
        assertThat(got.count(i, d)).as("count of %s in %s", i, d).isEqualTo(want.count(i, d));
      }
    }
  }

  @Test
  void addPodAndRemovePod_matchAFreshPreFilter() {
    FakeHandle handle = new FakeHandle();
    PodTopologySpreadPlugin p = listPlugin(handle);
    Pod pod = incoming().topologySpread(1, ZONE, HARD, "app", "web").obj();
    Pod extra = web("extra");
    Pod otherNs = MakePod.named("o").namespace("other").label("app", "web").obj();
    List<NodeInfo> without =
        List.of(
            zoned("a1", "a", web("w1")),
            zoned("b1", "b", web("w2"), web("w3")),
            zoned("c1", "c", web("w4")));
    List<NodeInfo> with =
        List.of(without.get(0).withPod(PodInfo.of(extra)), without.get(1), without.get(2));
    PreFilterState base = preFilter(p, pod, without);
    PreFilterState full = preFilter(p, pod, with);

    CycleState state = new CycleState();
    state.write(PodTopologySpreadPlugin.PRE_FILTER, base);
    CycleState copy = state.copy();
    assertThat(p.addPod(copy, pod, PodInfo.of(extra), with.get(0)).isSuccess()).isTrue();
    assertSameCounts(copy.require(PodTopologySpreadPlugin.PRE_FILTER), full, "a", "b", "c");
    // The original is untouched by changes to the copy.
    assertSameCounts(state.require(PodTopologySpreadPlugin.PRE_FILTER), base, "a", "b", "c");
    // A pod of another namespace changes nothing.
    p.addPod(copy, pod, PodInfo.of(otherNs), with.get(0));
    assertSameCounts(copy.require(PodTopologySpreadPlugin.PRE_FILTER), full, "a", "b", "c");
    assertThat(p.removePod(copy, pod, PodInfo.of(extra), with.get(0)).isSuccess()).isTrue();
    assertSameCounts(copy.require(PodTopologySpreadPlugin.PRE_FILTER), base, "a", "b", "c");
    // Filter sees the removal: zone a is the minimum again.
    assertThat(p.filter(copy, pod, with.get(0)).isSuccess()).isTrue();
    assertThat(p.filter(copy, pod, with.get(1)).code()).isEqualTo(Code.UNSCHEDULABLE);
  }

  @Test
  void addPod_keepsTheGlobalMinimumExactWhenTheMinimumZoneGrows() {
    FakeHandle handle = new FakeHandle();
    PodTopologySpreadPlugin p = listPlugin(handle);
    Pod pod = incoming().topologySpread(1, ZONE, HARD, "app", "web").obj();
    NodeInfo a = zoned("a1", "a", web("w1"));
    NodeInfo b = zoned("b1", "b", web("w2"), web("w3"));
    NodeInfo c = zoned("c1", "c", web("w4"), web("w5"));
    CycleState state = new CycleState();
    state.write(PodTopologySpreadPlugin.PRE_FILTER, preFilter(p, pod, List.of(a, b, c)));
    List<NodeInfo> now = new ArrayList<>(List.of(a, b, c));
    String[] targets = {"a1", "a1", "b1", "c1", "a1"};
    for (int i = 0; i < targets.length; i++) {
      int at = List.of("a1", "b1", "c1").indexOf(targets[i]);
      Pod added = web("add" + i);
      now.set(at, now.get(at).withPod(PodInfo.of(added)));
      p.addPod(state, pod, PodInfo.of(added), now.get(at));
      assertSameCounts(
          state.require(PodTopologySpreadPlugin.PRE_FILTER), preFilter(p, pod, now), "a", "b", "c");
    }
  }

  // ---- args

  static Stream<Object[]> invalidArgs() {
    TopologySpreadConstraint zone5 =
        new TopologySpreadConstraintBuilder()
            .withMaxSkew(5)
            .withTopologyKey(ZONE)
            .withWhenUnsatisfiable(SOFT)
            .build();
    return Stream.of(
        new Object[] {
          new PodTopologySpreadArgs(List.of(zone5), "System"),
          "defaultingType: invalid value \"System\": when .defaultConstraints are not empty"
        },
        new Object[] {
          new PodTopologySpreadArgs(List.of(), "Sometimes"),
          "defaultingType: Unsupported value: \"Sometimes\": supported values: \"System\", \"List\""
        },
        new Object[] {
          new PodTopologySpreadArgs(
              List.of(new TopologySpreadConstraintBuilder(zone5).withMaxSkew(0).build()), "List"),
          "defaultConstraints[0].maxSkew: invalid value 0: not in valid range"
        },
        new Object[] {
          new PodTopologySpreadArgs(
              List.of(
                  new TopologySpreadConstraintBuilder(zone5)
                      .withWhenUnsatisfiable("Maybe")
                      .build()),
              "List"),
          "defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"Maybe\": supported values:"
              + " \"DoNotSchedule\", \"ScheduleAnyway\""
        },
        new Object[] {
          new PodTopologySpreadArgs(
              List.of(new TopologySpreadConstraintBuilder(zone5).withTopologyKey("").build()),
              "List"),
          "defaultConstraints[0].topologyKey: Required value: can not be empty"
        },
        new Object[] {
          new PodTopologySpreadArgs(List.of(zone5, zone5), "List"),
          "defaultConstraints[1]: Duplicate value: \"{topology.kubernetes.io/zone, ScheduleAnyway}\""
        },
        new Object[] {
          new PodTopologySpreadArgs(
              List.of(
                  new TopologySpreadConstraintBuilder(zone5)
                      .withNewLabelSelector()
                      .addToMatchLabels("app", "web")
                      .endLabelSelector()
                      .build()),
              "List"),
          "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector,"
              + " as they deduced for each pod"
        });
  }

  @ParameterizedTest
  @MethodSource("invalidArgs")
  void args_invalidAreRefusedAsKubeWordsIt(PodTopologySpreadArgs args, String want) {
    FieldErrors e = FieldErrors.at("");
    args.validate(e);
    assertThat(e.messages()).containsExactly(want);
    assertThatThrownBy(() -> PodTopologySpreadPlugin.create(args, new FakeHandle()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(want);
  }

  @Test
  void args_defaultsAreKubesSystemDefaulting() {
    PodTopologySpreadArgs d = PodTopologySpreadArgs.defaults();
    FieldErrors e = FieldErrors.at("");
    d.validate(e);
    assertThat(e.isEmpty()).isTrue();
    assertThat(d.defaultingType()).isEqualTo("System");
    assertThat(d.effectiveDefaultConstraints())
        .extracting(
            TopologySpreadConstraint::getTopologyKey,
            TopologySpreadConstraint::getMaxSkew,
            TopologySpreadConstraint::getWhenUnsatisfiable)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(HOST, 3, SOFT),
            org.assertj.core.groups.Tuple.tuple(ZONE, 5, SOFT));
  }

  private static final String YAML_HEADER =
      "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n- pluginConfig:\n"
          + "  - name: PodTopologySpread\n    args:\n";

  @Test
  void args_decodeFromSchedulerConfiguration() {
    SchedulerConfiguration c =
        new ConfigLoader(BuiltInPlugins.registry())
            .parse(
                YAML_HEADER
                    + "      defaultingType: List\n"
                    + "      defaultConstraints:\n"
                    + "      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone,"
                    + " whenUnsatisfiable: DoNotSchedule, minDomains: 2}\n",
                "t");
    PodTopologySpreadArgs a =
        (PodTopologySpreadArgs) c.profiles().get(0).pluginArgs().get(PodTopologySpreadPlugin.NAME);
    assertThat(a.defaultingType()).isEqualTo("List");
    assertThat(a.defaultConstraints())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getMaxSkew()).isEqualTo(1);
              assertThat(d.getTopologyKey()).isEqualTo(ZONE);
              assertThat(d.getMinDomains()).isEqualTo(2);
            });
    assertThatThrownBy(
            () ->
                new ConfigLoader(BuiltInPlugins.registry())
                    .parse(
                        YAML_HEADER
                            + "      defaultConstraints:\n"
                            + "      - {maxSkew: 1, topologyKey: kubernetes.io/hostname,"
                            + " whenUnsatisfiable: ScheduleAnyway}\n",
                        "t"))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.errors())
                    .containsExactly(
                        "profiles[0].pluginConfig[0].args.defaultingType: invalid value \"System\":"
                            + " when .defaultConstraints are not empty"));
  }

  @Test
  void defaultProfile_enablesThePluginAfterTheVolumePluginsWithWeight2() {
    List<String> names = DefaultPlugins.MULTI_POINT.stream().map(PluginRef::name).toList();
    assertThat(names.indexOf(PodTopologySpreadPlugin.NAME))
        .isEqualTo(names.indexOf(DefaultPlugins.VOLUME_ZONE) + 1);
    assertThat(DefaultPlugins.MULTI_POINT)
        .filteredOn(r -> r.name().equals(PodTopologySpreadPlugin.NAME))
        .singleElement()
        .extracting(PluginRef::weight)
        .isEqualTo(2);
  }

  // ---- queueing hints

  private static QueueingHint podHint(
      PodTopologySpreadPlugin p, Pod pending, @Nullable Pod oldPod, @Nullable Pod newPod) {
    return p.afterPodChange(pending, oldPod, newPod);
  }

  @Test
  void hints_assignedPodEvents() {
    PodTopologySpreadPlugin p = listPlugin(new FakeHandle());
    Pod pending = incoming().topologySpread(1, ZONE, HARD, "app", "web").obj();
    Pod match = MakePod.named("m").label("app", "web").nodeName("a1").obj();
    Pod other = MakePod.named("o").label("app", "db").nodeName("a1").obj();
    Pod otherNs = MakePod.named("x").namespace("other").label("app", "web").nodeName("a1").obj();
    QueueingHint q = QueueingHint.QUEUE;
    QueueingHint skip = QueueingHint.SKIP;
    assertThat(podHint(p, pending, null, match)).as("matching pod added").isEqualTo(q);
    assertThat(podHint(p, pending, null, other)).as("other pod added").isEqualTo(skip);
    assertThat(podHint(p, pending, null, otherNs)).as("other namespace").isEqualTo(skip);
    assertThat(podHint(p, pending, match, null)).as("matching pod deleted").isEqualTo(q);
    assertThat(podHint(p, pending, other, null)).as("other pod deleted").isEqualTo(skip);
    Pod finished = MakePod.named("m").label("app", "web").nodeName("a1").phase("Succeeded").obj();
    assertThat(podHint(p, pending, match, finished)).as("matching pod finished").isEqualTo(q);
    Pod relabelled = MakePod.named("o").label("app", "web").nodeName("a1").obj();
    assertThat(podHint(p, pending, other, relabelled)).as("label now matches").isEqualTo(q);
    Pod extraLabel = MakePod.named("m").label("app", "web").label("tier", "x").nodeName("a1").obj();
    assertThat(podHint(p, pending, match, extraLabel)).as("irrelevant label").isEqualTo(skip);
  }

  @Test
  void hints_nodeEvents() {
    PodTopologySpreadPlugin p = listPlugin(new FakeHandle());
    Pod pending = incoming().topologySpread(1, ZONE, HARD, "app", "web").obj();
    Node zoned = MakeNode.named("n").zone("a").obj();
    Node bare = MakeNode.named("n").obj();
    Node moved = MakeNode.named("n").zone("b").obj();
    Node relabelled = MakeNode.named("n").zone("a").label("rack", "r1").obj();
    Node tainted = MakeNode.named("n").zone("a").taint("k", "v", "NoSchedule").obj();
    QueueingHint q = QueueingHint.QUEUE;
    QueueingHint skip = QueueingHint.SKIP;
    assertThat(p.afterNodeChange(pending, null, zoned)).as("node with key added").isEqualTo(q);
    assertThat(p.afterNodeChange(pending, null, bare)).as("node without key added").isEqualTo(skip);
    assertThat(p.afterNodeChange(pending, zoned, null)).as("node with key deleted").isEqualTo(q);
    assertThat(p.afterNodeChange(pending, bare, null)).as("node w/o key deleted").isEqualTo(skip);
    assertThat(p.afterNodeChange(pending, bare, zoned)).as("key added").isEqualTo(q);
    assertThat(p.afterNodeChange(pending, zoned, bare)).as("key removed").isEqualTo(q);
    assertThat(p.afterNodeChange(pending, zoned, moved)).as("zone changed").isEqualTo(q);
    assertThat(p.afterNodeChange(pending, zoned, relabelled)).as("other label").isEqualTo(skip);
    assertThat(p.afterNodeChange(pending, zoned, tainted)).as("taint changed").isEqualTo(q);
  }

  @Test
  void hints_registeredEvents() {
    PodTopologySpreadPlugin p = listPlugin(new FakeHandle());
    assertThat(p.eventsToRegister())
        .extracting(ClusterEventWithHint::event)
        .extracting(e -> e.resource())
        .containsExactly(
            EventResource.ASSIGNED_POD, EventResource.NODE, EventResource.UNSCHEDULED_POD);
  }
}
