package io.hami.nodeagent.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.nodeagent.NodeAgent;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.nvml.FakeNvml;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The monitor and the broker as the node agent runs them. */
@EnableKubernetesMockClient(crud = true)
class MonitorWiringIT {
  KubernetesClient client;
  @TempDir Path dir;

  NodeAgent agent(NodeAgentConfig config, FakeNvml nvml) throws Exception {
    return NodeAgent.create(
        config,
        nvml,
        client,
        null,
        Clock.systemUTC(),
        new NodeAgent.Tuning(
            Duration.ofMillis(200),
            Duration.ofMillis(200),
            () -> "c",
            (c, node) ->
                List.of(
                    new PodBuilder()
                        .withNewMetadata()
                        .withUid("u1")
                        .withName("p")
                        .withNamespace("ns")
                        .endMetadata()
                        .build())));
  }

  NodeAgentConfig.Builder config() throws Exception {
    Path devices = Files.createDirectories(dir.resolve("device-plugins"));
    return NodeAgentConfig.builder("n")
        .deviceDir(devices)
        .hookPath(dir.resolve("hook"))
        .monitorPeriod(Duration.ofMillis(200));
  }

  @Test
  void runningAgentLiftsTheLimitOfALoneContainerAndAnswersItsPid() throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec("1xNVIDIA-A10:24576MiB", "n");
    String uuid = nvml.devices().get(0).uuid();
    Path region = RegionFile.of("u1", "main").gpus(uuid).process(7, 0).write(dir.resolve("hook"));
    Path socket = dir.resolve("hostpid/broker.sock");
    NodeAgent agent = agent(config().hostPidBroker(socket).build(), nvml);
    agent.start(Duration.ofSeconds(30));
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(RegionFile.utilizationSwitch(region)).isZero());
      try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
        ch.connect(UnixDomainSocketAddress.of(socket));
        ch.write(ByteBuffer.wrap(new byte[] {'H', 'P', 'I', 'D', 0, 1, 0, 1}));
        ByteBuffer reply = ByteBuffer.allocate(12);
        while (reply.hasRemaining() && ch.read(reply) >= 0) {
          // the whole reply
        }
        assertThat((long) reply.getInt(8)).isEqualTo(ProcessHandle.current().pid());
      }
      assertThat(agent.isReady()).isTrue();
    } finally {
      agent.stop(Duration.ofSeconds(10));
    }
    assertThat(socket).doesNotExist();
  }

  @Test
  void aBrokerThatCannotListenFailsTheAgent() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("file"), "x");
    NodeAgent agent =
        agent(
            config().hostPidBroker(notADirectory.resolve("broker.sock")).build(),
            FakeNvml.fromSpec("1xNVIDIA-A10:24576MiB", "n"));
    try {
      assertThatThrownBy(() -> agent.start(Duration.ofSeconds(30)))
          .isInstanceOf(IllegalStateException.class);
      assertThat(agent.isReady()).isFalse();
      assertThat(agent.awaitTermination(Duration.ofSeconds(10))).isEqualTo(1);
    } finally {
      agent.stop(Duration.ofSeconds(10));
    }
  }

  @Test
  void monitorOffRunsNeitherMonitorNorBroker() throws Exception {
    FakeNvml nvml = FakeNvml.fromSpec("1xNVIDIA-A10:24576MiB", "n");
    Path region =
        RegionFile.of("u1", "main")
            .gpus(nvml.devices().get(0).uuid())
            .process(7, 0)
            .write(dir.resolve("hook"));
    Path socket = dir.resolve("hostpid/broker.sock");
    NodeAgent agent = agent(config().monitor(false).hostPidBroker(socket).build(), nvml);
    agent.start(Duration.ofSeconds(30));
    try {
      Thread.sleep(600);
      assertThat(RegionFile.utilizationSwitch(region)).isOne();
      assertThat(socket).doesNotExist();
    } finally {
      agent.stop(Duration.ofSeconds(10));
    }
  }
}
