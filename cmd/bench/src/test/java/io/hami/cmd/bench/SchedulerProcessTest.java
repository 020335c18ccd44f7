package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class SchedulerProcessTest {
  record Case(String name, @Nullable String value, List<String> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> extraJvmOptionsCases() {
    return Stream.of(
        new Case("unset", null, List.of()),
        new Case("blank", "  \t ", List.of()),
        new Case("one", "-XX:TieredStopAtLevel=4", List.of("-XX:TieredStopAtLevel=4")),
        new Case(
            "several, any whitespace",
            "  -Dx=1 \t-XX:StartFlightRecording=filename=/tmp/s.jfr,settings=profile\n-Xss1m ",
            List.of(
                "-Dx=1",
                "-XX:StartFlightRecording=filename=/tmp/s.jfr,settings=profile",
                "-Xss1m")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("extraJvmOptionsCases")
  void extraJvmOptions_splitsOnWhitespace(Case c) {
    assertThat(SchedulerProcess.extraJvmOptions(c.value())).isEqualTo(c.want());
  }
}
