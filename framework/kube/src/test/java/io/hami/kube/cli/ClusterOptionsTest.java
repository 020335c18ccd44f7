package io.hami.kube.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class ClusterOptionsTest {
  @TempDir Path dir;

  @Command(name = "plain")
  static final class Plain {
    @Mixin ClusterOptions cluster;
  }

  @Command(name = "other", resourceBundle = "io.hami.kube.cli.OtherDefault")
  static final class OtherDefault {
    @Mixin ClusterOptions cluster;
  }

  private static final String KUBECONFIG =
      """
      apiVersion: v1
      kind: Config
      current-context: c
      contexts:
      - name: c
        context: {cluster: k, user: u, namespace: team}
      clusters:
      - name: k
        cluster: {server: "https://10.0.0.1:6443", certificate-authority: ca.crt}
      users:
      - name: u
        user: {token: t}
      """;

  @Test
  void parsesTheFile() throws IOException {
    Path kc = Files.writeString(dir.resolve("kc"), KUBECONFIG);
    Plain p = new Plain();
    new CommandLine(p).parseArgs("--kubeconfig", kc.toString());
    assertThat(p.cluster.kubeconfig()).isEqualTo(kc);
    assertThat(p.cluster.problem()).isNull();
    Config c = p.cluster.config();
    assertThat(c.getMasterUrl()).startsWith("https://10.0.0.1:6443");
    assertThat(c.getNamespace()).isEqualTo("team");
    // Relative paths in the file resolve against its folder.
    assertThat(c.getCaCertFile()).isEqualTo(dir.resolve("ca.crt").toString());
  }

  static Stream<Arguments> problems() {
    return Stream.of(
        Arguments.of("no option", null, false),
        Arguments.of("readable file", "kc", false),
        Arguments.of("missing file", "missing", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("problems")
  void reportsAnUnreadableFile(String name, String file, boolean problem) throws IOException {
    Files.writeString(dir.resolve("kc"), KUBECONFIG);
    ClusterOptions o = ClusterOptions.of(file == null ? null : dir.resolve(file));
    if (problem) {
      assertThat(o.problem()).isEqualTo("--kubeconfig: cannot read " + dir.resolve(file));
    } else {
      assertThat(o.problem()).isNull();
    }
  }

  static Stream<Arguments> helps() {
    return Stream.of(
        Arguments.of(new Plain(), "default: " + ClusterOptions.DEFAULT),
        Arguments.of(new OtherDefault(), "default: start one"));
  }

  @ParameterizedTest
  @MethodSource("helps")
  void helpNamesTheCommandsDefault(Object command, String want) {
    String usage =
        new CommandLine(command).setUsageHelpWidth(200).getUsageMessage(CommandLine.Help.Ansi.OFF);
    assertThat(usage).contains("--kubeconfig=FILE").contains(want);
  }
}
