package io.hami.framework.plugins.podtopologyspread;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.plugins.helper.Selector;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeCountsTest {
  private static final Selector WEB = Selector.ofLabels(Map.of("app", "web"));

  private static MakePod web(String name) {
    return MakePod.named(name).label("app", "web");
  }

  private static NodeInfo node(List<MakePod> pods) {
    NodeInfo n = NodeInfo.of(MakeNode.named("n1").obj());
    for (MakePod p : pods) {
      n = n.withPod(PodInfo.of(p.obj()));
    }
    return n;
  }

  static Stream<Arguments> nodes() {
    return Stream.of(
        Arguments.of("no pods", List.of(), 0),
        Arguments.of("one matching pod", List.of(web("a")), 1),
        Arguments.of(
            "matching, other labels, other namespace, terminating",
            List.of(
                web("a"),
                MakePod.named("b").label("app", "db"),
                web("c").namespace("other"),
                web("d").terminating(),
                web("e")),
            2),
        Arguments.of(
            "many", Stream.of("a", "b", "c", "d", "e", "f").map(NodeCountsTest::web).toList(), 6));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void countsTheMatchingPodsAndAgainWhenAsked(String name, List<MakePod> pods, int want) {
    NodeInfo n = node(pods);
    assertThat(NodeCounts.count(n, WEB, "default")).isEqualTo(want);
    assertThat(NodeCounts.count(n, NodeCounts.key(WEB, "default"))).as("kept").isEqualTo(want);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void aNodeWithOneMorePodCountsIt(String name, List<MakePod> pods, int want) {
    NodeInfo n = node(pods);
    assertThat(NodeCounts.count(n, WEB, "default")).isEqualTo(want);
    NodeInfo more = n.withPod(PodInfo.of(web("z").obj()));
    assertThat(NodeCounts.count(more, WEB, "default")).isEqualTo(want + 1);
    assertThat(NodeCounts.count(n, WEB, "default"))
        .as("the old node keeps its count")
        .isEqualTo(want);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void anEmptySelectorCountsNothing(String name, List<MakePod> pods, int want) {
    assertThat(NodeCounts.count(node(pods), Selector.EVERYTHING, "default")).isZero();
  }
}
