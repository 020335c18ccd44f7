package io.hami.framework.plugins.interpodaffinity;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.framework.testing.MakePod;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodAffinitiesTest {
  private static final String HOST = "kubernetes.io/hostname";

  @Test
  void onePodObjectCompilesOnce() {
    Pod pod = MakePod.named("p").preferredPodAffinity(5, HOST, "app", "db").obj();

    PodAffinities first = PodAffinities.of(pod, new ArrayList<>());
    PodAffinities again = PodAffinities.of(pod, new ArrayList<>());

    assertThat(again).isSameAs(first);
    assertThat(first.preferredAffinity()).hasSize(1);
    assertThat(first.preferredAffinity().get(0).weight()).isEqualTo(5);
  }

  @Test
  void errorsOfAMalformedTermComeWithEveryCall() {
    Pod pod =
        MakePod.named("p")
            .podAntiAffinity(MakePod.podAffinityTerm("", "app", "web").build())
            .podAntiAffinity(HOST, "app", "web")
            .obj();

    for (int call = 0; call < 2; call++) {
      List<String> errors = new ArrayList<>();
      PodAffinities terms = PodAffinities.of(pod, errors);

      assertThat(errors)
          .as("call %d", call)
          .singleElement()
          .asString()
          .startsWith(
              "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]");
      assertThat(terms.requiredAntiAffinity()).as("call %d", call).hasSize(1);
    }
  }

  @Test
  void aNewVersionOfAPodCompilesItsOwnTerms() {
    Pod v1 = MakePod.named("p").label("app", "a").preferredPodAffinity(5, HOST, "app", "db").obj();
    PodAffinities before = PodAffinities.of(v1, new ArrayList<>());
    Pod v2 =
        new PodBuilder(v1)
            .editMetadata()
            .addToLabels("app", "b")
            .endMetadata()
            .editSpec()
            .editAffinity()
            .editPodAffinity()
            .editFirstPreferredDuringSchedulingIgnoredDuringExecution()
            .withWeight(9)
            .endPreferredDuringSchedulingIgnoredDuringExecution()
            .endPodAffinity()
            .endAffinity()
            .endSpec()
            .build();

    PodAffinities after = PodAffinities.of(v2, new ArrayList<>());

    assertThat(after).isNotSameAs(before);
    assertThat(after.labels()).containsEntry("app", "b");
    assertThat(after.preferredAffinity().get(0).weight()).isEqualTo(9);
    assertThat(before.preferredAffinity().get(0).weight()).isEqualTo(5);
  }
}
