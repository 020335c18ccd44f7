package io.hami.cmd.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

class WebhookCommandTest {

  @TempDir Path dir;
  private Path cert;
  private Path key;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void files() throws IOException {
    cert = dir.resolve("tls.crt");
    key = dir.resolve("tls.key");
    copy("rsa.crt", cert);
    copy("rsa-pkcs8.key", key);
  }

  private static void copy(String resource, Path to) throws IOException {
    try (InputStream in =
        WebhookCommandTest.class.getResourceAsStream("/io/hami/webhook/pem/" + resource)) {
      Files.write(to, in.readAllBytes());
    }
  }

  private int run(String... args) {
    CommandLine cl = hami();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    return cl.execute(args);
  }

  @Test
  void help_isListed() {
    assertThat(run("webhook", "--help")).isZero();
    assertThat(out.toString())
        .contains("Usage: hami webhook")
        .contains("--bind-address")
        .contains("--cert-file")
        .contains("--device-config-file")
        .contains("--scheduler-name");
  }

  @Test
  void validate_printsEffectiveSettingsFromTheShippedDeviceConfig() {
    Path shipped = Path.of("..", "..", "config", "device-config.yaml");
    int code =
        run(
            "webhook",
            "--validate",
            "--cert-file",
            cert.toString(),
            "--key-file",
            key.toString(),
            "--device-config-file",
            shipped.toString(),
            "--bind-address",
            "127.0.0.1:0");
    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("scheduler name:      hami-scheduler, also replacing default-scheduler")
        .contains("nvidia.com/gpu, nvidia.com/gpumem, nvidia.com/gpumem-percentage")
        .contains("default GPUs:        1")
        .contains("core policy:         default");
  }

  @Test
  void everyBadFlag_isReportedAtOnce() {
    int code =
        run(
            "webhook",
            "--bind-address",
            "nope",
            "--cert-file",
            dir.resolve("x.crt").toString(),
            "--key-file",
            dir.resolve("x.key").toString(),
            "--cert-check-interval",
            "0s",
            "--threads",
            "0",
            "--scheduler-name",
            "Bad_Name");
    assertThat(code).isEqualTo(WebhookCommand.EXIT_USAGE);
    assertThat(err.toString())
        .contains("--bind-address: address \"nope\" is not host:port")
        .contains("--cert-file: " + dir.resolve("x.crt") + " does not exist")
        .contains("--key-file: " + dir.resolve("x.key") + " does not exist")
        .contains("--cert-check-interval: \"0s\" is not a positive duration")
        .contains("--threads: 0 is not in 1..256")
        .contains("--scheduler-name: \"Bad_Name\" is not a valid scheduler name")
        .contains("6 configuration problems");
  }

  @Test
  void badDeviceConfig_namesTheFields() throws IOException {
    Path config = dir.resolve("device-config.yaml");
    Files.writeString(config, "nvidia:\n  defaultGPUNum: -1\n  gpuCorePolicy: sometimes\n");
    int code =
        run(
            "webhook",
            "--validate",
            "--cert-file",
            cert.toString(),
            "--key-file",
            key.toString(),
            "--device-config-file",
            config.toString());
    assertThat(code).isEqualTo(WebhookCommand.EXIT_USAGE);
    assertThat(err.toString())
        .contains("defaultGPUNum")
        .contains("gpuCorePolicy")
        .contains("sometimes");
  }

  @Test
  void unreadableDeviceConfig_isAUsageError() {
    int code =
        run(
            "webhook",
            "--validate",
            "--cert-file",
            cert.toString(),
            "--key-file",
            key.toString(),
            "--device-config-file",
            dir.resolve("missing.yaml").toString());
    assertThat(code).isEqualTo(WebhookCommand.EXIT_USAGE);
    assertThat(err.toString()).contains("missing.yaml");
  }

  @Test
  void brokenCertificate_failsAtStartWithRuntimeCode() throws IOException {
    Files.writeString(cert, "not a certificate");
    int code =
        run(
            "webhook",
            "--cert-file",
            cert.toString(),
            "--key-file",
            key.toString(),
            "--bind-address",
            "127.0.0.1:0",
            "--kubeconfig",
            writeKubeconfig().toString());
    assertThat(code).isEqualTo(WebhookCommand.EXIT_RUNTIME);
    assertThat(err.toString()).contains("no PEM block 'CERTIFICATE'");
  }

  private Path writeKubeconfig() throws IOException {
    Path kc = dir.resolve("kubeconfig");
    Files.writeString(
        kc,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "https://127.0.0.1:1"}
        users:
        - name: u
          user: {token: t}
        contexts:
        - name: x
          context: {cluster: c, user: u}
        current-context: x
        """);
    return kc;
  }

  record DurationCase(String text, @Nullable Duration want) {
    @Override
    public String toString() {
      return text;
    }
  }

  static Stream<DurationCase> durations() {
    return Stream.of(
        new DurationCase("10s", Duration.ofSeconds(10)),
        new DurationCase("500ms", Duration.ofMillis(500)),
        new DurationCase("2m", Duration.ofMinutes(2)),
        new DurationCase("1h", Duration.ofHours(1)),
        new DurationCase("PT15S", Duration.ofSeconds(15)),
        new DurationCase("0s", null),
        new DurationCase("-5s", null),
        new DurationCase("10", null),
        new DurationCase("ten seconds", null),
        new DurationCase("99999999999999999999s", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("durations")
  void parseDuration(DurationCase c) {
    assertThat(WebhookCommand.parseDuration(c.text())).isEqualTo(c.want());
  }

  /**
   * {@code hami} with only this subcommand; every exception is a usage error, as in HamiCommand.
   */
  static CommandLine hami() {
    CommandLine cl =
        new CommandLine(CommandSpec.create().name("hami")).addSubcommand(WebhookCommand.class);
    cl.setExitCodeExceptionMapper(t -> 2);
    return cl;
  }
}
