package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodPhasesTest {

  private static Pod pod(@Nullable String phase, boolean deleting) {
    PodBuilder b = new PodBuilder().withNewMetadata().withName("p").endMetadata();
    if (deleting) {
      b.editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata();
    }
    if (phase != null) {
      b.withNewStatus().withPhase(phase).endStatus();
    }
    return b.build();
  }

  static Stream<Arguments> cases() {
    // phase, deleting, want terminal, want gone
    return Stream.of(
        Arguments.of(null, false, false, false),
        Arguments.of("Pending", false, false, false),
        Arguments.of("Running", false, false, false),
        Arguments.of("Unknown", false, false, false),
        Arguments.of("Succeeded", false, true, true),
        Arguments.of("Failed", false, true, true),
        Arguments.of("succeeded", false, false, false),
        Arguments.of("Running", true, false, true),
        Arguments.of(null, true, false, true),
        Arguments.of("Failed", true, true, true));
  }

  @ParameterizedTest(name = "phase={0} deleting={1}")
  @MethodSource("cases")
  void answersEachQuestion(
      @Nullable String phase, boolean deleting, boolean terminal, boolean gone) {
    Pod pod = pod(phase, deleting);
    assertThat(PodPhases.isTerminal(phase)).isEqualTo(terminal);
    assertThat(PodPhases.isTerminal(pod)).isEqualTo(terminal);
    assertThat(PodPhases.isDeleting(pod)).isEqualTo(deleting);
    assertThat(PodPhases.isGone(pod)).isEqualTo(gone);
    assertThat(PodPhases.phase(pod)).isEqualTo(phase);
  }
}
