package io.hami.cmd.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

class SchedulerCommandTest {
  @TempDir Path dir;

  private record Run(int code, String err) {}

  private static Run run(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = hami();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    return new Run(cl.execute(args), err.toString());
  }

  @Test
  void badConfig_exitsTwoAndPrintsEveryError() throws Exception {
    Path cfg = dir.resolve("bad.yaml");
    Files.writeString(
        cfg,
        "apiVersion: hami.io/v1\nkind: Nope\nparallelism: -1\nprofiles:\n- plugins:\n"
            + "    score:\n      enabled:\n      - name: Missing\n");
    Run r = run("scheduler", "--config", cfg.toString());
    assertThat(r.code()).isEqualTo(SchedulerCommand.EXIT_CONFIG);
    assertThat(r.err())
        .contains("kind: invalid value \"Nope\"")
        .contains("parallelism: invalid value -1")
        .contains("profiles[0].plugins.score.enabled[0].name: invalid value \"Missing\"");
  }

  @Test
  void badFlags_exitTwo() {
    Run r =
        run(
            "scheduler",
            "--kube-qps",
            "0",
            "--kube-burst",
            "0",
            "--metrics-bind-address",
            "nope",
            "--binding-threads",
            "0",
            "--cluster-view",
            "public");
    assertThat(r.code()).isEqualTo(SchedulerCommand.EXIT_CONFIG);
    assertThat(r.err())
        .contains("--cluster-view: invalid value \"public\": want localhost, any or off")
        .contains("--kube-qps")
        .contains("--kube-burst")
        .contains("--metrics-bind-address")
        .contains("--binding-threads: invalid value 0");
  }

  @Test
  void unreadableKubeconfig_exitsTwo() {
    Run r = run("scheduler", "--kubeconfig", dir.resolve("missing").toString());
    assertThat(r.code()).isEqualTo(SchedulerCommand.EXIT_CONFIG);
    assertThat(r.err()).contains("--kubeconfig");
  }

  @Test
  void badDeviceConfig_exitsTwoNamingTheField() throws Exception {
    Path devices = dir.resolve("device-config.yaml");
    Files.writeString(devices, "nvidia:\n  deviceSplitCount: -3\n");
    Run r = run("scheduler", "--device-config-file", devices.toString());
    assertThat(r.code()).isEqualTo(SchedulerCommand.EXIT_CONFIG);
    assertThat(r.err()).contains("--device-config-file").contains("deviceSplitCount");
  }

  @Test
  void badWebhookFlags_exitTwoNamingEachFlag() {
    Run r =
        run(
            "scheduler",
            "--leader-elect=false",
            "--metrics-bind-address=",
            "--webhook-bind-address=nonsense",
            "--webhook-cert-file=" + dir.resolve("missing.crt"),
            "--webhook-key-file=" + dir.resolve("missing.key"));
    assertThat(r.code()).isEqualTo(SchedulerCommand.EXIT_CONFIG);
    assertThat(r.err())
        .contains("--webhook-bind-address")
        .contains("--webhook-cert-file")
        .contains("--webhook-key-file");
  }

  @Test
  void shutdownHook_stopsTheServiceAndReturnsOnlyOnceItIsClosed() throws Exception {
    CountDownLatch closed = new CountDownLatch(1);
    AtomicBoolean stopAsked = new AtomicBoolean();
    Thread hook =
        SchedulerCommand.shutdownHook(() -> stopAsked.set(true), closed, Duration.ofMinutes(1));

    hook.start();
    hook.join(300);

    assertThat(stopAsked).isTrue();
    assertThat(hook.isAlive()).as("the hook returned before the service was closed").isTrue();
    closed.countDown();
    hook.join(10_000);
    assertThat(hook.isAlive()).isFalse();
  }

  @Test
  void shutdownHook_givesUpAfterTheGrace() throws Exception {
    Thread hook =
        SchedulerCommand.shutdownHook(() -> {}, new CountDownLatch(1), Duration.ofMillis(50));

    hook.start();
    hook.join(10_000);

    assertThat(hook.isAlive()).isFalse();
  }

  @Test
  void parseAddress_acceptsHostPortAndEmpty() {
    assertThat(SchedulerCommand.parseAddress("")).isNull();
    assertThat(SchedulerCommand.parseAddress(":9000").getPort()).isEqualTo(9000);
    assertThat(SchedulerCommand.parseAddress("127.0.0.1:0").getAddress().isLoopbackAddress())
        .isTrue();
  }

  /**
   * {@code hami} with only this subcommand; every exception is a usage error, as in HamiCommand.
   */
  static CommandLine hami() {
    CommandLine cl =
        new CommandLine(CommandSpec.create().name("hami")).addSubcommand(SchedulerCommand.class);
    cl.setExitCodeExceptionMapper(t -> 2);
    return cl;
  }
}
