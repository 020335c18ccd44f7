package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CompilerCpuTest {
  // A thread's stat line: utime 120 and stime 30 ticks (fields 14 and 15).
  private static String stat(String comm) {
    return "4242 ("
        + comm
        + ") S 1 4242 4242 0 -1 4194368 16 0 0 0 120 30 0 0 20 0 30 0 12345 0 0 0 0 0 0 0";
  }

  static Stream<Arguments> lines() {
    return Stream.of(
        Arguments.of("C2 compiler", stat("C2 CompilerThre"), 150),
        Arguments.of("C1 compiler", stat("C1 CompilerThre"), 150),
        Arguments.of("a scheduler thread", stat("hami-scheduler"), 0),
        Arguments.of("a name with a parenthesis", stat("odd) (name"), 0),
        Arguments.of("truncated", "4242 (C2 CompilerThre) S 1 2", 0),
        Arguments.of("garbage", "no stat here", 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lines")
  void countsOnlyCompilerThreads(String name, String line, long ticks) {
    assertThat(CompilerCpu.compilerTicks(line)).isEqualTo(ticks);
  }

  @Test
  void sumsTheCompilerThreadsOfAProcess(@TempDir Path tmp) throws IOException {
    for (String[] t :
        new String[][] {
          {"1", "C2 CompilerThre"}, {"2", "C1 CompilerThre"}, {"3", "hami-binding-0"}
        }) {
      Path task = Files.createDirectories(tmp.resolve(t[0]));
      Files.writeString(task.resolve("stat"), stat(t[1]));
    }
    assertThat(CompilerCpu.seconds(tmp)).hasValue(3.0);
    assertThat(CompilerCpu.seconds(tmp.resolve("gone"))).isEmpty();
  }

  @Test
  void readsThisProcess() {
    assertThat(CompilerCpu.seconds(ProcessHandle.current().pid())).isPresent();
  }
}
