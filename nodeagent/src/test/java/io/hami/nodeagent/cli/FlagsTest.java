package io.hami.nodeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FlagsTest {

  @ParameterizedTest
  @CsvSource({"30s, PT30S", "500ms, PT0.5S", "1m30s, PT1M30S", "2h, PT2H", "PT5S, PT5S"})
  void durations(String flag, String iso) {
    List<String> errors = new ArrayList<>();
    assertThat(Flags.duration("--d", flag, errors)).isEqualTo(Duration.parse(iso));
    assertThat(errors).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({"30", "s", "5x", "1m 3s", "PTx"})
  void badDurations(String flag) {
    List<String> errors = new ArrayList<>();
    assertThat(Flags.duration("--d", flag, errors)).isNull();
    assertThat(errors).hasSize(1).allMatch(e -> e.startsWith("--d: '" + flag + "'"));
  }

  @Test
  void addresses() {
    List<String> errors = new ArrayList<>();
    assertThat(Flags.address("--m", ":9394", errors).getPort()).isEqualTo(9394);
    assertThat(Flags.address("--m", "127.0.0.1:0", errors).getHostString()).isEqualTo("127.0.0.1");
    assertThat(Flags.address("--m", "", errors)).isNull();
    assertThat(errors).isEmpty();
    assertThat(Flags.address("--m", "h:99999", errors)).isNull();
    assertThat(errors).containsExactly("--m: port 99999 is not in 0..65535");
  }
}
