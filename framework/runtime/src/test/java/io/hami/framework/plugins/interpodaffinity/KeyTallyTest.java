package io.hami.framework.plugins.interpodaffinity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class KeyTallyTest {
  private static final String HOST = "kubernetes.io/hostname";
  private static final String ZONE = "topology.kubernetes.io/zone";

  private record Add(String key, long delta) {}

  private record Case(
      String name, List<Add> adds, Map<String, String> nodeLabels, Map<String, Long> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Stream<Case> cases() {
    Map<String, String> node = Map.of(HOST, "n1", ZONE, "a");
    return Stream.of(
        new Case("nothing added", List.of(), node, Map.of()),
        new Case(
            "sums per key",
            List.of(new Add(HOST, 2), new Add(ZONE, 1), new Add(HOST, 3)),
            node,
            Map.of(HOST + "=n1", 5L, ZONE + "=a", 1L)),
        new Case(
            "a key the node lacks is dropped",
            List.of(new Add("rack", 4), new Add(HOST, 1)),
            node,
            Map.of(HOST + "=n1", 1L)),
        new Case(
            "contributions cancelling out leave no pair",
            List.of(new Add(HOST, 3), new Add(HOST, -3)),
            node,
            Map.of()),
        new Case(
            "more keys than the first array holds",
            List.of(
                new Add("k1", 1),
                new Add("k2", 2),
                new Add("k3", 3),
                new Add("k4", 4),
                new Add("k5", 5),
                new Add("k1", 10)),
            Map.of("k1", "a", "k2", "b", "k3", "c", "k4", "d", "k5", "e"),
            Map.of("k1=a", 11L, "k2=b", 2L, "k3=c", 3L, "k4=d", 4L, "k5=e", 5L)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void drainsSumsIntoTheNodesPairs(Case c) {
    KeyTally tally = new KeyTally();
    for (Add a : c.adds()) {
      tally.add(a.key(), a.delta());
    }
    TopologyCounts counts = new TopologyCounts();

    tally.drainInto(counts, c.nodeLabels());

    TopologyCounts expected = new TopologyCounts();
    c.expected()
        .forEach(
            (pair, n) -> {
              int eq = pair.indexOf('=');
              expected.add(pair.substring(0, eq), pair.substring(eq + 1), n);
            });
    assertThat(counts).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void drainingClearsTheTally(Case c) {
    KeyTally tally = new KeyTally();
    for (Add a : c.adds()) {
      tally.add(a.key(), a.delta());
    }
    tally.drainInto(new TopologyCounts(), c.nodeLabels());
    TopologyCounts second = new TopologyCounts();

    tally.drainInto(second, c.nodeLabels());

    assertThat(second.isEmpty()).isTrue();
  }
}
