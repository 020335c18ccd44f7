package io.hami.framework.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.nodeaffinity.NodeAffinityPlugin;
import io.hami.framework.plugins.nodename.NodeNamePlugin;
import io.hami.framework.plugins.nodeports.NodePortsPlugin;
import io.hami.framework.plugins.noderesources.NodeResourcesFitArgs;
import io.hami.framework.plugins.noderesources.NodeResourcesFitPlugin;
import io.hami.framework.plugins.nodeunschedulable.NodeUnschedulablePlugin;
import io.hami.framework.plugins.tainttoleration.TaintTolerationPlugin;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.PluginHarness;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Table-driven Filter cases for every built-in plugin. */
class BuiltInPluginsTest {

  record Case(
      String name,
      FilterPlugin plugin,
      Pod pod,
      NodeInfo node,
      Code want,
      @Nullable String reason) {
    @Override
    public String toString() {
      return plugin.name() + ": " + name;
    }
  }

  private static NodeInfo node(Node n, Pod... pods) {
    NodeInfo info = NodeInfo.of(n);
    for (Pod p : pods) {
      info = info.withPod(PodInfo.of(p));
    }
    return info;
  }

  private static final FakeHandle HANDLE = new FakeHandle();
  private static final FilterPlugin FIT =
      (FilterPlugin) NodeResourcesFitPlugin.create(NodeResourcesFitArgs.defaults(), HANDLE);
  private static final MakeNode SMALL =
      MakeNode.named("n1").capacity("2", "4Gi", 3).resource("nvidia.com/gpu", "2");

  static Stream<Case> cases() {
    FilterPlugin unsched = new NodeUnschedulablePlugin();
    FilterPlugin name = new NodeNamePlugin();
    FilterPlugin taints = new TaintTolerationPlugin();
    FilterPlugin affinity = new NodeAffinityPlugin();
    FilterPlugin ports = new NodePortsPlugin();
    Code ok = Code.SUCCESS;
    Code no = Code.UNSCHEDULABLE;
    Code never = Code.UNSCHEDULABLE_AND_UNRESOLVABLE;
    return Stream.of(
        new Case(
            "schedulable node",
            unsched,
            MakePod.named("p").obj(),
            node(MakeNode.named("n").obj()),
            ok,
            null),
        new Case(
            "cordoned node",
            unsched,
            MakePod.named("p").obj(),
            node(MakeNode.named("n").unschedulable(true).obj()),
            never,
            "node(s) were unschedulable"),
        new Case(
            "cordoned but tolerated",
            unsched,
            MakePod.named("p")
                .toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")
                .obj(),
            node(MakeNode.named("n").unschedulable(true).obj()),
            ok,
            null),
        new Case(
            "no node name",
            name,
            MakePod.named("p").obj(),
            node(MakeNode.named("n").obj()),
            ok,
            null),
        new Case(
            "matching node name",
            name,
            MakePod.named("p").nodeName("n").obj(),
            node(MakeNode.named("n").obj()),
            ok,
            null),
        new Case(
            "other node name",
            name,
            MakePod.named("p").nodeName("m").obj(),
            node(MakeNode.named("n").obj()),
            never,
            "node(s) didn't match the requested node name"),
        new Case(
            "untainted",
            taints,
            MakePod.named("p").obj(),
            node(MakeNode.named("n").obj()),
            ok,
            null),
        new Case(
            "NoSchedule untolerated",
            taints,
            MakePod.named("p").obj(),
            node(MakeNode.named("n").taint("gpu", "true", "NoSchedule").obj()),
            never,
            "node(s) had untolerated taint {gpu: true}"),
        new Case(
            "NoSchedule tolerated by Equal",
            taints,
            MakePod.named("p").toleration("gpu", "Equal", "true", "NoSchedule").obj(),
            node(MakeNode.named("n").taint("gpu", "true", "NoSchedule").obj()),
            ok,
            null),
        new Case(
            "Equal with other value",
            taints,
            MakePod.named("p").toleration("gpu", "Equal", "false", "").obj(),
            node(MakeNode.named("n").taint("gpu", "true", "NoExecute").obj()),
            never,
            "node(s) had untolerated taint {gpu: true}"),
        new Case(
            "empty key Exists tolerates all",
            taints,
            MakePod.named("p").toleration("", "Exists", "", "").obj(),
            node(
                MakeNode.named("n")
                    .taint("a", "", "NoSchedule")
                    .taint("b", "x", "NoExecute")
                    .obj()),
            ok,
            null),
        new Case(
            "PreferNoSchedule does not filter",
            taints,
            MakePod.named("p").obj(),
            node(MakeNode.named("n").taint("soft", "", "PreferNoSchedule").obj()),
            ok,
            null),
        new Case(
            "nodeSelector matches",
            affinity,
            MakePod.named("p").nodeSelector("gpu", "a100").obj(),
            node(MakeNode.named("n").label("gpu", "a100").obj()),
            ok,
            null),
        new Case(
            "nodeSelector differs",
            affinity,
            MakePod.named("p").nodeSelector("gpu", "a100").obj(),
            node(MakeNode.named("n").label("gpu", "t4").obj()),
            never,
            "node(s) didn't match Pod's node affinity/selector"),
        new Case(
            "required In",
            affinity,
            MakePod.named("p").requiredNodeAffinity("zone", "In", "a", "b").obj(),
            node(MakeNode.named("n").label("zone", "b").obj()),
            ok,
            null),
        new Case(
            "required NotIn",
            affinity,
            MakePod.named("p").requiredNodeAffinity("zone", "NotIn", "a").obj(),
            node(MakeNode.named("n").label("zone", "a").obj()),
            never,
            "node(s) didn't match Pod's node affinity/selector"),
        new Case(
            "required terms are ORed",
            affinity,
            MakePod.named("p")
                .requiredNodeAffinity("zone", "In", "x")
                .requiredNodeAffinity("gpu", "Exists")
                .obj(),
            node(MakeNode.named("n").label("gpu", "1").obj()),
            ok,
            null),
        new Case(
            "required Gt",
            affinity,
            MakePod.named("p").requiredNodeAffinity("mem", "Gt", "40").obj(),
            node(MakeNode.named("n").label("mem", "80").obj()),
            ok,
            null),
        new Case(
            "Gt with a non-number never matches",
            affinity,
            MakePod.named("p").requiredNodeAffinity("mem", "Gt", "40").obj(),
            node(MakeNode.named("n").label("mem", "lots").obj()),
            never,
            "node(s) didn't match Pod's node affinity/selector"),
        new Case(
            "DoesNotExist",
            affinity,
            MakePod.named("p").requiredNodeAffinity("spot", "DoesNotExist").obj(),
            node(MakeNode.named("n").obj()),
            ok,
            null),
        new Case(
            "free port",
            ports,
            MakePod.named("p").hostPort(8080).obj(),
            node(MakeNode.named("n").obj(), MakePod.named("q").hostPort(9090).obj()),
            ok,
            null),
        new Case(
            "taken port",
            ports,
            MakePod.named("p").hostPort(8080).obj(),
            node(MakeNode.named("n").obj(), MakePod.named("q").hostPort(8080).obj()),
            no,
            "node(s) didn't have free ports for the requested pod ports"),
        new Case(
            "same port other protocol",
            ports,
            MakePod.named("p").hostPort("UDP", "", 53).obj(),
            node(MakeNode.named("n").obj(), MakePod.named("q").hostPort("TCP", "", 53).obj()),
            ok,
            null),
        new Case(
            "same port other IPs",
            ports,
            MakePod.named("p").hostPort("TCP", "10.0.0.1", 80).obj(),
            node(
                MakeNode.named("n").obj(),
                MakePod.named("q").hostPort("TCP", "10.0.0.2", 80).obj()),
            ok,
            null),
        new Case(
            "same port, one on all IPs",
            ports,
            MakePod.named("p").hostPort("TCP", "10.0.0.1", 80).obj(),
            node(MakeNode.named("n").obj(), MakePod.named("q").hostPort("TCP", "", 80).obj()),
            no,
            "node(s) didn't have free ports for the requested pod ports"),
        new Case(
            "fits",
            FIT,
            MakePod.named("p").cpu("1").memory("1Gi").obj(),
            node(SMALL.obj()),
            ok,
            null),
        new Case(
            "cpu short",
            FIT,
            MakePod.named("p").cpu("1500m").obj(),
            node(SMALL.obj(), MakePod.named("q").cpu("1").obj()),
            no,
            "Insufficient cpu"),
        new Case(
            "memory short",
            FIT,
            MakePod.named("p").memory("5Gi").obj(),
            node(SMALL.obj()),
            no,
            "Insufficient memory"),
        new Case(
            "too many pods",
            FIT,
            MakePod.named("p").obj(),
            node(
                SMALL.obj(),
                MakePod.named("a").obj(),
                MakePod.named("b").obj(),
                MakePod.named("c").obj()),
            no,
            "Too many pods"),
        new Case(
            "extended resource short",
            FIT,
            MakePod.named("p").limit("nvidia.com/gpu", "3").obj(),
            node(SMALL.obj()),
            no,
            "Insufficient nvidia.com/gpu"),
        new Case(
            "vGPU memory and cores are ignored",
            FIT,
            MakePod.named("p")
                .limit("nvidia.com/gpu", "1")
                .limit("nvidia.com/gpumem", "40000")
                .limit("nvidia.com/gpucores", "50")
                .obj(),
            node(SMALL.obj()),
            ok,
            null),
        new Case(
            "unknown extended resource is checked",
            FIT,
            MakePod.named("p").limit("example.com/fpga", "1").obj(),
            node(SMALL.obj()),
            no,
            "Insufficient example.com/fpga"),
        new Case(
            "init container peak counts",
            FIT,
            MakePod.named("p")
                .initContainer("init", false)
                .cpu("3")
                .container("app")
                .cpu("1")
                .obj(),
            node(SMALL.obj()),
            no,
            "Insufficient cpu"),
        new Case(
            "sidecar adds to app containers",
            FIT,
            MakePod.named("p")
                .initContainer("side", true)
                .cpu("1")
                .container("app")
                .cpu("1500m")
                .obj(),
            node(SMALL.obj()),
            no,
            "Insufficient cpu"),
        new Case(
            "overhead counts",
            FIT,
            MakePod.named("p").cpu("1500m").overhead("cpu", "600m").obj(),
            node(SMALL.obj()),
            no,
            "Insufficient cpu"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void filter(Case c) {
    CycleState state = new CycleState();
    if (c.plugin() instanceof PreFilterPlugin) {
      PreFilterResult r =
          ((PreFilterPlugin) c.plugin()).preFilter(state, c.pod(), Snapshot.of(List.of(c.node())));
      if (r.status().isSkip()) {
        assertThat(c.want()).isEqualTo(Code.SUCCESS);
        return;
      }
      assertThat(r.status().isSuccess()).isTrue();
    }
    Status s = c.plugin().filter(state, c.pod(), c.node());
    assertThat(s.code()).isEqualTo(c.want());
    if (c.reason() != null) {
      assertThat(s.reasons()).contains(c.reason());
    }
  }

  @Test
  void fitRejections_areSharedAcrossNodesRefusedAlike() {
    Pod pod = MakePod.named("p").cpu("1500m").memory("5Gi").limit("nvidia.com/gpu", "3").obj();
    CycleState state = new CycleState();
    ((PreFilterPlugin) FIT).preFilter(state, pod, Snapshot.of(List.of(node(SMALL.obj()))));
    Status a = FIT.filter(state, pod, node(SMALL.obj(), MakePod.named("q").cpu("1").obj()));
    Status b =
        FIT.filter(
            state,
            pod,
            node(
                MakeNode.named("n2").capacity("2", "4Gi", 3).resource("nvidia.com/gpu", "2").obj(),
                MakePod.named("r").cpu("1").obj()));
    Status cpuOnly =
        FIT.filter(
            state,
            pod,
            node(
                MakeNode.named("n3")
                    .capacity("1", "64Gi", 3)
                    .resource("nvidia.com/gpu", "8")
                    .obj()));
    assertThat(a).isSameAs(b);
    assertThat(a.reasons())
        .containsExactly("Insufficient cpu", "Insufficient memory", "Insufficient nvidia.com/gpu");
    assertThat(a.plugin()).isEqualTo(NodeResourcesFitPlugin.NAME);
    assertThat(a.withPlugin(NodeResourcesFitPlugin.NAME)).isSameAs(a);
    assertThat(cpuOnly.reasons()).containsExactly("Insufficient cpu");
    // Another pod's cycle gets its own answers.
    Pod small = MakePod.named("s").cpu("100m").obj();
    CycleState other = new CycleState();
    ((PreFilterPlugin) FIT).preFilter(other, small, Snapshot.of(List.of(node(SMALL.obj()))));
    assertThat(FIT.filter(other, small, node(SMALL.obj())).isSuccess()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scoreCases")
  void score(String name, PluginHarness harness, Pod pod, String wantNode) {
    assertThat(harness.run(pod).selected()).isEqualTo(wantNode);
  }

  static Stream<Arguments> scoreCases() {
    NodeInfo busy =
        node(
            MakeNode.named("busy").capacity("4", "8Gi", 110).obj(),
            MakePod.named("x").cpu("3").memory("6Gi").obj());
    NodeInfo idle = node(MakeNode.named("idle").capacity("4", "8Gi", 110).obj());
    NodeInfo soft =
        node(
            MakeNode.named("soft")
                .capacity("4", "8Gi", 110)
                .taint("spot", "", "PreferNoSchedule")
                .obj());
    NodeInfo labelled =
        node(MakeNode.named("labelled").capacity("4", "8Gi", 110).label("disk", "ssd").obj());
    NodeResourcesFitArgs most =
        new NodeResourcesFitArgs(
            List.of(),
            List.of(),
            new NodeResourcesFitArgs.ScoringStrategy(
                "MostAllocated", List.of(new NodeResourcesFitArgs.ResourceWeight("cpu", 1))));
    return Stream.of(
        Arguments.of(
            "LeastAllocated prefers the idle node",
            PluginHarness.create()
                .plugin(NodeResourcesFitPlugin.create(NodeResourcesFitArgs.defaults(), HANDLE))
                .nodes(busy, idle),
            MakePod.named("p").cpu("100m").obj(),
            "idle"),
        Arguments.of(
            "MostAllocated prefers the busy node",
            PluginHarness.create()
                .plugin(NodeResourcesFitPlugin.create(most, HANDLE))
                .nodes(idle, busy),
            MakePod.named("p").cpu("100m").obj(),
            "busy"),
        Arguments.of(
            "PreferNoSchedule taint ranks lower",
            PluginHarness.create().plugin(new TaintTolerationPlugin()).nodes(soft, idle),
            MakePod.named("p").obj(),
            "idle"),
        Arguments.of(
            "preferred affinity ranks higher",
            PluginHarness.create().plugin(new NodeAffinityPlugin()).nodes(idle, labelled),
            MakePod.named("p").preferredNodeAffinity(10, "disk", "In", "ssd").obj(),
            "labelled"));
  }
}
