package io.hami.framework.plugins.defaultpreemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PostFilterResult;
import io.hami.framework.api.Status;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class DefaultPreemptionPluginTest {

  /** Rejects a node whose CPU the pod does not fit into, as NodeResourcesFit would. */
  private static final FilterPlugin CPU_FIT =
      new FilterPlugin() {
        @Override
        public String name() {
          return "CpuFit";
        }

        @Override
        public Status filter(CycleState state, Pod pod, NodeInfo node) {
          long want = PodInfo.of(pod).requests().milliCpu();
          long free = node.allocatable().milliCpu() - node.requested().milliCpu();
          return want <= free ? Status.success() : Status.unschedulable("Insufficient cpu");
        }
      };

  private static Pod pod(String name, int priority, String cpu) {
    return MakePod.named(name).priority(priority).cpu(cpu).obj();
  }

  private static Pod running(String name, int priority, String cpu, String startTime) {
    Pod p = MakePod.named(name).priority(priority).cpu(cpu).obj();
    p.getStatus().setStartTime(startTime);
    return p;
  }

  private static NodeInfo node(String name, String cpu, Pod... pods) {
    List<PodInfo> infos = new ArrayList<>();
    for (Pod p : pods) {
      p.getSpec().setNodeName(name);
      infos.add(PodInfo.of(p));
    }
    return NodeInfo.of(MakeNode.named(name).capacity(cpu, "32Gi", 110).obj(), infos);
  }

  private static Map<String, Status> unschedulable(NodeInfo... nodes) {
    Map<String, Status> m = new LinkedHashMap<>();
    for (NodeInfo n : nodes) {
      m.put(n.name(), Status.unschedulable("Insufficient cpu"));
    }
    return m;
  }

  private static PostFilterResult run(FakeHandle h, Pod preemptor, Map<String, Status> statuses) {
    DefaultPreemptionPlugin p =
        (DefaultPreemptionPlugin)
            DefaultPreemptionPlugin.create(DefaultPreemptionArgs.defaults(), h, new Random(1));
    return p.postFilter(new CycleState(), preemptor, statuses);
  }

  private static List<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).toList();
  }

  record Case(
      String name,
      List<NodeInfo> nodes,
      Pod preemptor,
      @Nullable String wantNode,
      List<String> wantVictims,
      String wantMessage) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "lowest priority victim is chosen and higher ones reprieved",
            List.of(
                node(
                    "n1",
                    "4",
                    running("low", 1, "2", "2026-01-01T00:00:00Z"),
                    running("mid", 5, "2", "2026-01-01T00:00:00Z"))),
            pod("high", 10, "2"),
            "n1",
            List.of("low"),
            ""),
        new Case(
            "fewest victims: one big pod over two small ones",
            List.of(
                node(
                    "n1",
                    "4",
                    running("a", 1, "2", "2026-01-01T00:00:00Z"),
                    running("b", 1, "2", "2026-01-01T00:00:00Z")),
                node("n2", "4", running("c", 1, "4", "2026-01-01T00:00:00Z"))),
            pod("high", 10, "4"),
            "n2",
            List.of("c"),
            ""),
        new Case(
            "lower highest victim priority wins over fewer victims",
            List.of(
                node("n1", "4", running("mid", 5, "4", "2026-01-01T00:00:00Z")),
                node(
                    "n2",
                    "4",
                    running("a", 1, "2", "2026-01-01T00:00:00Z"),
                    running("b", 1, "2", "2026-01-01T00:00:00Z"))),
            pod("high", 10, "4"),
            "n2",
            List.of("a", "b"),
            ""),
        new Case(
            "latest start time breaks the remaining tie",
            List.of(
                node("n1", "2", running("old", 1, "2", "2026-01-01T00:00:00Z")),
                node("n2", "2", running("young", 1, "2", "2026-01-02T00:00:00Z"))),
            pod("high", 10, "2"),
            "n2",
            List.of("young"),
            ""),
        new Case(
            "equal priority is never a victim",
            List.of(node("n1", "2", running("peer", 10, "2", "2026-01-01T00:00:00Z"))),
            pod("high", 10, "2"),
            "",
            List.of(),
            "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming"
                + " pod."),
        new Case(
            "victims that would not make room are no candidate",
            List.of(
                node(
                    "n1",
                    "4",
                    running("low", 1, "1", "2026-01-01T00:00:00Z"),
                    running("peer", 10, "3", "2026-01-01T00:00:00Z"))),
            pod("high", 10, "2"),
            "",
            List.of(),
            "preemption: 0/1 nodes are available: 1 Insufficient cpu."));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void postFilter_picksNodeAndVictims(Case c) {
    FakeHandle h =
        new FakeHandle().withNodes(c.nodes().toArray(NodeInfo[]::new)).withFilterPlugins(CPU_FIT);
    PostFilterResult r = run(h, c.preemptor(), unschedulable(c.nodes().toArray(NodeInfo[]::new)));
    assertThat(r.nominatedNodeName()).isEqualTo(c.wantNode());
    assertThat(names(r.victims())).isEqualTo(c.wantVictims());
    assertThat(names(h.preempted().stream().map(FakeHandle.Preemption::victim).toList()))
        .isEqualTo(c.wantVictims());
    if (c.wantVictims().isEmpty()) {
      assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE);
      assertThat(r.status().message()).isEqualTo(c.wantMessage());
    } else {
      assertThat(r.status().isSuccess()).isTrue();
    }
  }

  @Test
  void postFilter_recordsPreemptedEventOnVictim() {
    NodeInfo n1 = node("n1", "2", running("low", 1, "2", "2026-01-01T00:00:00Z"));
    FakeHandle h = new FakeHandle().withNodes(n1).withFilterPlugins(CPU_FIT);
    Pod high = pod("high", 10, "2");
    run(h, high, unschedulable(n1));
    assertThat(h.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.reason()).isEqualTo("Preempted");
              assertThat(e.note())
                  .isEqualTo("Preempted by pod " + high.getMetadata().getUid() + " on node n1");
            });
  }

  @Test
  void postFilter_minimisesPdbViolations() {
    Pod guarded = running("guarded", 1, "2", "2026-01-01T00:00:00Z");
    guarded.getMetadata().setLabels(Map.of("app", "db"));
    NodeInfo n1 = node("n1", "2", guarded);
    NodeInfo n2 = node("n2", "2", running("free", 1, "2", "2026-01-01T00:00:00Z"));
    PodDisruptionBudget pdb =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withName("db")
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .withSelector(new LabelSelectorBuilder().addToMatchLabels("app", "db").build())
            .endSpec()
            .withNewStatus()
            .withDisruptionsAllowed(0)
            .endStatus()
            .build();
    FakeHandle h = new FakeHandle().withNodes(n1, n2).withFilterPlugins(CPU_FIT).withObjects(pdb);
    PostFilterResult r = run(h, pod("high", 10, "2"), unschedulable(n1, n2));
    assertThat(r.nominatedNodeName()).isEqualTo("n2");
    assertThat(names(r.victims())).containsExactly("free");
  }

  @Test
  void postFilter_violatesPdbOnlyWhenNothingElseHelps() {
    Pod guarded = running("guarded", 1, "2", "2026-01-01T00:00:00Z");
    guarded.getMetadata().setLabels(Map.of("app", "db"));
    NodeInfo n1 = node("n1", "2", guarded);
    PodDisruptionBudget pdb =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withName("db")
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .withSelector(new LabelSelectorBuilder().addToMatchLabels("app", "db").build())
            .endSpec()
            .withNewStatus()
            .withDisruptionsAllowed(0)
            .endStatus()
            .build();
    FakeHandle h = new FakeHandle().withNodes(n1).withFilterPlugins(CPU_FIT).withObjects(pdb);
    PostFilterResult r = run(h, pod("high", 10, "2"), unschedulable(n1));
    assertThat(r.nominatedNodeName()).isEqualTo("n1");
    assertThat(names(r.victims())).containsExactly("guarded");
  }

  @Test
  void postFilter_preemptionPolicyNeverIsNotEligible() {
    NodeInfo n1 = node("n1", "2", running("low", 1, "2", "2026-01-01T00:00:00Z"));
    FakeHandle h = new FakeHandle().withNodes(n1).withFilterPlugins(CPU_FIT);
    Pod high = pod("high", 10, "2");
    high.getSpec().setPreemptionPolicy("Never");
    PostFilterResult r = run(h, high, unschedulable(n1));
    assertThat(r.nominatedNodeName()).isNull();
    assertThat(r.status().message())
        .isEqualTo("preemption: not eligible due to preemptionPolicy=Never.");
    assertThat(h.preempted()).isEmpty();
  }

  @Test
  void postFilter_waitsForTerminatingVictimsOnNominatedNode() {
    Pod victim = MakePod.named("low").priority(1).cpu("2").terminating().obj();
    victim
        .getStatus()
        .getConditions()
        .add(
            new io.fabric8.kubernetes.api.model.PodConditionBuilder()
                .withType("DisruptionTarget")
                .withStatus("True")
                .withReason("PreemptionByScheduler")
                .build());
    NodeInfo n1 = node("n1", "2", victim);
    FakeHandle h = new FakeHandle().withNodes(n1).withFilterPlugins(CPU_FIT);
    Pod high = pod("high", 10, "2");
    high.getStatus().setNominatedNodeName("n1");
    PostFilterResult r = run(h, high, unschedulable(n1));
    // A null nomination keeps the pod nominated to n1.
    assertThat(r.nominatedNodeName()).isNull();
    assertThat(r.status().message())
        .isEqualTo("preemption: not eligible due to a terminating pod on the nominated node.");
  }

  @Test
  void postFilter_skipsUnresolvableNodes() {
    NodeInfo n1 = node("n1", "2", running("low", 1, "2", "2026-01-01T00:00:00Z"));
    NodeInfo n2 = node("n2", "2", running("low2", 1, "2", "2026-01-01T00:00:00Z"));
    FakeHandle h = new FakeHandle().withNodes(n1, n2).withFilterPlugins(CPU_FIT);
    Map<String, Status> statuses = new LinkedHashMap<>();
    statuses.put("n1", Status.unresolvable("node(s) didn't match Pod's node affinity/selector"));
    statuses.put("n2", Status.unresolvable("node(s) didn't match Pod's node affinity/selector"));
    PostFilterResult r = run(h, pod("high", 10, "2"), statuses);
    assertThat(r.nominatedNodeName()).isEmpty();
    assertThat(r.status().message())
        .isEqualTo(
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    assertThat(h.preempted()).isEmpty();
  }

  @Test
  void postFilter_countsNominatedPodsOfHigherPriority() {
    NodeInfo n1 = node("n1", "4", running("low", 1, "2", "2026-01-01T00:00:00Z"));
    // A more important pod already holds the room on n1 that evicting "low" would free.
    FakeHandle h =
        new FakeHandle()
            .withNodes(n1)
            .withFilterPlugins(CPU_FIT)
            .withNominatedPod("n1", pod("top", 20, "2"));
    PostFilterResult r = run(h, pod("high", 10, "4"), unschedulable(n1));
    assertThat(r.nominatedNodeName()).isEmpty();
    assertThat(h.preempted()).isEmpty();
  }

  @Test
  void postFilter_clearsLowerPriorityNominationsOnTheChosenNode() {
    NodeInfo n1 = node("n1", "2", running("low", 1, "2", "2026-01-01T00:00:00Z"));
    Pod waiting = pod("waiting", 5, "1");
    FakeHandle h =
        new FakeHandle().withNodes(n1).withFilterPlugins(CPU_FIT).withNominatedPod("n1", waiting);
    PostFilterResult r = run(h, pod("high", 10, "2"), unschedulable(n1));
    assertThat(r.nominatedNodeName()).isEqualTo("n1");
    assertThat(names(h.clearedNominations())).containsExactly("waiting");
  }

  @Test
  void postFilter_evictionFailureIsAnErrorAndKeepsTheNomination() {
    NodeInfo n1 = node("n1", "2", running("low", 1, "2", "2026-01-01T00:00:00Z"));
    FakeHandle h =
        new FakeHandle()
            .withNodes(n1)
            .withFilterPlugins(CPU_FIT)
            .withPreemptStatus(Status.error("apiserver down"));
    PostFilterResult r = run(h, pod("high", 10, "2"), unschedulable(n1));
    assertThat(r.status().code()).isEqualTo(Code.ERROR);
    assertThat(r.nominatedNodeName()).isNull();
  }

  record ArgsCase(String name, int percentage, int absolute, List<String> wantErrors) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ArgsCase> argsCases() {
    return Stream.of(
        new ArgsCase("defaults", 10, 100, List.of()),
        new ArgsCase(
            "percentage above 100",
            101,
            100,
            List.of("minCandidateNodesPercentage: invalid value 101: not in valid range [0, 100]")),
        new ArgsCase(
            "negative absolute",
            10,
            -1,
            List.of("minCandidateNodesAbsolute: invalid value -1: not in valid range [0, inf)")),
        new ArgsCase(
            "both zero",
            0,
            0,
            List.of(
                "minCandidateNodesPercentage: invalid value 0: cannot be zero at the same time as"
                    + " minCandidateNodesAbsolute",
                "minCandidateNodesAbsolute: invalid value 0: cannot be zero at the same time as"
                    + " minCandidateNodesPercentage")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("argsCases")
  void args_validate(ArgsCase c) {
    FieldErrors errors = FieldErrors.at("");
    new DefaultPreemptionArgs(c.percentage(), c.absolute()).validate(errors);
    assertThat(errors.messages()).isEqualTo(c.wantErrors());
  }

  @Test
  void args_numCandidates() {
    DefaultPreemptionArgs d = DefaultPreemptionArgs.defaults();
    assertThat(d.numCandidates(50)).isEqualTo(50);
    assertThat(d.numCandidates(5000)).isEqualTo(500);
    assertThat(new DefaultPreemptionArgs(10, 0).numCandidates(5)).isEqualTo(0);
  }
}
