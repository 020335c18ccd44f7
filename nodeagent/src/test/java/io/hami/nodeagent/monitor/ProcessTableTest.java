package io.hami.nodeagent.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ProcessTableTest {
  @TempDir Path proc;

  record Case(String name, String stat, ProcessTable.Entry want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static String line(String comm, char state, long start) {
    StringBuilder b = new StringBuilder("42 (").append(comm).append(") ").append(state);
    for (int field = 4; field < 22; field++) {
      b.append(' ').append(field);
    }
    return b.append(' ').append(start).append(" 23 24\n").toString();
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("running", line("python", 'S', 987654), new ProcessTable.Running('S', 987654)),
        new Case(
            "a command with spaces and parentheses",
            line("a ) b (c)", 'R', 5),
            new ProcessTable.Running('R', 5)),
        new Case("zombie", line("x", 'Z', 7), new ProcessTable.Running('Z', 7)),
        new Case("exited between open and read", "", new ProcessTable.Absent()),
        new Case(
            "truncated line",
            "42 (x) S 1 2",
            new ProcessTable.Unreadable("<stat>: malformed stat line")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void readsStateAndStartTime(Case c) throws IOException {
    Files.createDirectories(proc.resolve("42"));
    Files.writeString(proc.resolve("42/stat"), c.stat());

    ProcessTable.Entry got = new ProcessTable.ProcFs(proc).stat(42);

    if (c.want() instanceof ProcessTable.Unreadable u) {
      assertThat(got)
          .isEqualTo(
              new ProcessTable.Unreadable(
                  u.reason().replace("<stat>", proc.resolve("42/stat").toString())));
    } else {
      assertThat(got).isEqualTo(c.want());
    }
  }

  @Test
  void aMissingEntryIsAbsent_andTheRealTableKnowsThisProcess() {
    assertThat(new ProcessTable.ProcFs(proc).stat(42)).isEqualTo(new ProcessTable.Absent());
    assertThat(ProcessTable.host().stat((int) ProcessHandle.current().pid()))
        .isInstanceOf(ProcessTable.Running.class);
  }

  @Test
  void knownDeadFollowsLibvgpusRule() {
    assertThat(ProcessTable.knownDead(new ProcessTable.Absent(), 5)).isTrue();
    assertThat(ProcessTable.knownDead(new ProcessTable.Running('X', 5), 5)).isTrue();
    assertThat(ProcessTable.knownDead(new ProcessTable.Running('S', 6), 5)).isTrue();
    assertThat(ProcessTable.knownDead(new ProcessTable.Running('S', 5), 5)).isFalse();
    assertThat(ProcessTable.knownDead(new ProcessTable.Running('S', 6), 0)).isFalse();
    assertThat(ProcessTable.knownDead(new ProcessTable.Unreadable("EACCES"), 5)).isFalse();
  }
}
