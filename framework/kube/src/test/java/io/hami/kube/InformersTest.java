package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class InformersTest {

  static Stream<Arguments> events() {
    return Stream.<Arguments>of(
        Arguments.of(
            "add", (Consumer<ResourceEventHandler<String>>) h -> h.onAdd("a"), List.of("latest a")),
        Arguments.of(
            "update passes the new version",
            (Consumer<ResourceEventHandler<String>>) h -> h.onUpdate("old", "new"),
            List.of("latest new")),
        Arguments.of(
            "delete",
            (Consumer<ResourceEventHandler<String>>) h -> h.onDelete("d", false),
            List.of("deleted d")),
        Arguments.of(
            "delete, final state unknown",
            (Consumer<ResourceEventHandler<String>>) h -> h.onDelete("d", true),
            List.of("deleted d")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("events")
  void routesEachEvent(
      String name, Consumer<ResourceEventHandler<String>> event, List<String> want) {
    List<String> got = new ArrayList<>();
    event.accept(Informers.onLatest(s -> got.add("latest " + s), s -> got.add("deleted " + s)));
    assertThat(got).isEqualTo(want);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("events")
  void withoutDeletionIgnoresIt(
      String name, Consumer<ResourceEventHandler<String>> event, List<String> want) {
    List<String> got = new ArrayList<>();
    event.accept(Informers.<String>onLatest(s -> got.add("latest " + s)));
    assertThat(got).isEqualTo(want.stream().filter(s -> s.startsWith("latest")).toList());
  }

  private static Pod pod(String name, String resourceVersion) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  @Test
  void onChangePassesUpdatesOnlyWhenTheResourceVersionChanged() {
    List<String> got = new ArrayList<>();
    ResourceEventHandler<Pod> h =
        Informers.onChange(
            p -> got.add("add " + p.getMetadata().getName()),
            (o, n) ->
                got.add(
                    "update "
                        + o.getMetadata().getResourceVersion()
                        + "->"
                        + n.getMetadata().getResourceVersion()),
            p -> got.add("delete " + p.getMetadata().getName()));
    h.onAdd(pod("a", "1"));
    h.onUpdate(pod("a", "1"), pod("a", "1"));
    h.onUpdate(pod("a", "1"), pod("a", "2"));
    h.onDelete(pod("a", "2"), true);
    assertThat(got).containsExactly("add a", "update 1->2", "delete a");
  }
}
