package io.hami.framework.plugins.balancedallocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.balancedallocation.NodeResourcesBalancedAllocationArgs.ResourceSpec;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class NodeResourcesBalancedAllocationPluginTest {
  private static final FakeHandle HANDLE = new FakeHandle();
  private static final NodeResourcesBalancedAllocationArgs CPU_MEM_GPU =
      new NodeResourcesBalancedAllocationArgs(
          List.of(
              new ResourceSpec("cpu", 1),
              new ResourceSpec("memory", 1),
              new ResourceSpec("nvidia.com/gpu", 1)));

  record Case(
      String name, NodeResourcesBalancedAllocationArgs args, Pod pod, NodeInfo node, long want) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static NodeInfo node(MakeNode n, Pod... pods) {
    NodeInfo info = NodeInfo.of(n.obj());
    for (Pod p : pods) {
      info = info.withPod(PodInfo.of(p));
    }
    return info;
  }

  private static final MakeNode N = MakeNode.named("n").capacity("4", "8Gi", 110);

  static Stream<Case> scoreCases() {
    NodeResourcesBalancedAllocationArgs dflt = NodeResourcesBalancedAllocationArgs.defaults();
    return Stream.of(
        new Case(
            "equal fractions score 100",
            dflt,
            MakePod.named("p").cpu("1").memory("2Gi").obj(),
            node(N),
            100),
        new Case(
            "cpu 0.5, memory 0.125: std 0.1875",
            dflt,
            MakePod.named("p").cpu("2").memory("1Gi").obj(),
            node(N),
            81),
        new Case(
            "the node's requests count: cpu 0.75, memory 0.5",
            dflt,
            MakePod.named("p").cpu("1").memory("4Gi").obj(),
            node(N, MakePod.named("old").cpu("2").obj()),
            87),
        new Case(
            "a fraction above 1 counts as 1",
            dflt,
            MakePod.named("p").cpu("8").memory("4Gi").obj(),
            node(N),
            75),
        new Case(
            "best-effort containers add nothing (real requests, not scoring defaults)",
            dflt,
            MakePod.named("p").cpu("2").memory("4Gi").obj(),
            node(N, MakePod.named("besteffort").obj()),
            100),
        new Case(
            "three resources: population standard deviation",
            CPU_MEM_GPU,
            MakePod.named("p").cpu("2").memory("2Gi").req("nvidia.com/gpu", "4").obj(),
            node(MakeNode.named("n").capacity("4", "8Gi", 110).resource("nvidia.com/gpu", "4")),
            68),
        new Case(
            "an extended resource the pod does not request is left out",
            CPU_MEM_GPU,
            MakePod.named("p").cpu("1").memory("2Gi").obj(),
            node(
                MakeNode.named("n").capacity("4", "8Gi", 110).resource("nvidia.com/gpu", "4"),
                MakePod.named("gpu-user").req("nvidia.com/gpu", "4").obj()),
            100),
        new Case(
            "a resource the node does not offer is left out",
            CPU_MEM_GPU,
            MakePod.named("p").cpu("1").memory("2Gi").req("nvidia.com/gpu", "1").obj(),
            node(N),
            100),
        new Case(
            "pods are no resource to balance",
            new NodeResourcesBalancedAllocationArgs(
                List.of(new ResourceSpec("cpu", 1), new ResourceSpec("pods", 1))),
            MakePod.named("p").cpu("2").obj(),
            node(N),
            100));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scoreCases")
  void score(Case c) {
    var plugin = new NodeResourcesBalancedAllocationPlugin(c.args(), HANDLE);
    CycleState state = new CycleState();
    assertThat(plugin.preScore(state, c.pod(), List.of(c.node())).isSuccess()).isTrue();
    assertThat(plugin.score(state, c.pod(), c.node())).isEqualTo(c.want());
    // Without PreScore (as when only Score is enabled) the result is the same.
    assertThat(plugin.score(new CycleState(), c.pod(), c.node())).isEqualTo(c.want());
  }

  @Test
  void preScore_skipsBestEffortPods() {
    var plugin =
        new NodeResourcesBalancedAllocationPlugin(
            NodeResourcesBalancedAllocationArgs.defaults(), HANDLE);
    Pod bestEffort = MakePod.named("p").obj();
    Status s = plugin.preScore(new CycleState(), bestEffort, List.of(node(N)));
    assertThat(s.isSkip()).isTrue();
    // Scored without PreScore, a best-effort pod gets 0 everywhere, as in kube-scheduler.
    assertThat(plugin.score(new CycleState(), bestEffort, node(N))).isZero();
  }

  record ArgsCase(String name, NodeResourcesBalancedAllocationArgs args, List<String> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ArgsCase> argsCases() {
    return Stream.of(
        new ArgsCase("defaults", NodeResourcesBalancedAllocationArgs.defaults(), List.of()),
        new ArgsCase(
            "null resources take the defaults",
            new NodeResourcesBalancedAllocationArgs(null),
            List.of()),
        new ArgsCase(
            "empty",
            new NodeResourcesBalancedAllocationArgs(List.of()),
            List.of("args.resources: must list at least one resource")),
        new ArgsCase(
            "weight other than 1",
            new NodeResourcesBalancedAllocationArgs(List.of(new ResourceSpec("cpu", 2))),
            List.of("args.resources[0].weight: invalid value 2: must be 1")),
        new ArgsCase(
            "duplicate and missing names",
            new NodeResourcesBalancedAllocationArgs(
                Arrays.asList(
                    new ResourceSpec("cpu", 1),
                    new ResourceSpec("cpu", 1),
                    new ResourceSpec(" ", 1),
                    null)),
            List.of(
                "args.resources[1].name: invalid value \"cpu\": duplicate resource",
                "args.resources[2].name: required value",
                "args.resources[3].name: required value")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("argsCases")
  void validate(ArgsCase c) {
    FieldErrors errors = FieldErrors.at("args");
    c.args().validate(errors);
    assertThat(errors.messages()).containsExactlyElementsOf(c.want());
  }

  @Test
  void balancedScore_matchesTheFormula() {
    assertThat(NodeResourcesBalancedAllocationPlugin.balancedScore(new double[] {0.3}, 1, 0.3))
        .isEqualTo(100);
    assertThat(NodeResourcesBalancedAllocationPlugin.balancedScore(new double[] {1, 0}, 2, 1))
        .isEqualTo(50);
  }
}
