package io.hami.cmd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
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
}
