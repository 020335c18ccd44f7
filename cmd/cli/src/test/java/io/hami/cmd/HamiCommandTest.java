package io.hami.cmd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HamiCommandTest {

  @Test
  void help_listsSubcommandsAndExitsZero() {
    StringWriter out = new StringWriter();
    CommandLine cl = HamiCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    int code = cl.execute("--help");
    assertThat(code).isZero();
    assertThat(out.toString()).contains("Usage: hami").contains("help");
  }

  @Test
  void unknownFlag_exitsWithUsageCode() {
    StringWriter err = new StringWriter();
    CommandLine cl = HamiCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    int code = cl.execute("--no-such-flag");
    assertThat(code).isEqualTo(HamiCommand.EXIT_USAGE);
    assertThat(err.toString()).contains("--no-such-flag");
  }

  @Test
  void version_printsProjectVersionAndCommit() {
    StringWriter out = new StringWriter();
    CommandLine cl = HamiCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    int code = cl.execute("--version");
    assertThat(code).isZero();
    // The build writes build.properties before the tests run.
    assertThat(out.toString().trim())
        .matches(
            "hami \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit ([0-9a-f]{12}(-dirty)?|unknown)\\)");
  }

  @Test
  void version_withoutBuildInfo_saysUnknown() {
    assertThat(VersionProvider.line(new Properties())).isEqualTo("hami unknown (commit unknown)");
  }

  @Test
  void explainHelp_summarisesItsSubcommandInAWholeSentence() {
    StringWriter out = new StringWriter();
    CommandLine cl = HamiCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    assertThat(cl.execute("explain", "--help")).isZero();
    assertThat(out.toString())
        .containsPattern("pod +Explains where a pod went and why, or why it waits\\.\\R");
  }
}
