package io.hami.nodeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.nodeagent.config.NodeAgentConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MonitorFlagsTest {

  static NodeAgentCommand.Parsed parse(String... args) {
    NodeAgentCommand cmd = new NodeAgentCommand();
    new CommandLine(cmd).parseArgs(args);
    return cmd.parse();
  }

  @Test
  void monitorRunsEveryFiveSecondsWithTheBrokerByDefault() {
    NodeAgentConfig c = parse("--node-name", "n").config();

    assertThat(c).isNotNull();
    assertThat(c.monitor()).isTrue();
    assertThat(c.monitorPeriod()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.hostPidBroker()).isEqualTo(Path.of("/tmp/vgpulock/hostpid/broker.sock"));
  }

  @Test
  void monitorCanBeTurnedOffAndTheBrokerMoved() {
    NodeAgentConfig off =
        parse("--node-name", "n", "--monitor=false", "--hostpid-broker-socket=").config();
    NodeAgentConfig on =
        parse(
                "--node-name",
                "n",
                "--monitor",
                "--monitor-period=1s",
                "--hostpid-broker-socket=/run/hami/broker.sock")
            .config();

    assertThat(off).isNotNull();
    assertThat(off.monitor()).isFalse();
    assertThat(off.hostPidBroker()).isNull();
    assertThat(on).isNotNull();
    assertThat(on.monitor()).isTrue();
    assertThat(on.monitorPeriod()).isEqualTo(Duration.ofSeconds(1));
    assertThat(on.hostPidBroker()).isEqualTo(Path.of("/run/hami/broker.sock"));
  }

  @Test
  void badValuesNameTheFlagAndTheValue() {
    assertThat(parse("--node-name", "n", "--monitor=maybe", "--monitor-period=5 s").errors())
        .containsExactlyInAnyOrder(
            "--monitor: 'maybe' is not true or false",
            "--monitor-period: '5 s' is not a duration such as 30s, 500ms or 1m");
    assertThat(parse("--node-name", "n", "--monitor-period=10ms").errors())
        .containsExactly("monitor period: PT0.01S is not between 100ms and 10m (--monitor-period)");
    assertThat(parse("--node-name", "n", "--monitor-period=1h").errors())
        .containsExactly("monitor period: PT1H is not between 100ms and 10m (--monitor-period)");
    assertThat(parse("--node-name", "n", "--hostpid-broker-socket=/" + "x".repeat(120)).errors())
        .singleElement()
        .asString()
        .startsWith("host-pid broker socket: '/xxx")
        .endsWith("is longer than a Unix socket path may be (107 bytes)");
  }
}
