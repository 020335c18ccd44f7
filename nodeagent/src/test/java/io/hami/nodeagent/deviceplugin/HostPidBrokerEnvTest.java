package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.hami.nodeagent.config.NodeAgentConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** libvgpu asks the broker only when the agent serves one. */
class HostPidBrokerEnvTest {
  @TempDir Path hook;

  java.util.Map<String, String> env(NodeAgentConfig.Builder b) throws Exception {
    return ContainerResponses.build(
            b.hookPath(hook).build(),
            ContainerResponsesTest.POD,
            new ContainerBuilder().withName("c").build(),
            ContainerResponsesTest.DEVICES,
            "x")
        .getEnvsMap();
  }

  @Test
  void brokerEnvFollowsTheMonitorAndTheSocket() throws Exception {
    Path sock = Path.of("/tmp/vgpulock/hostpid/broker.sock");

    assertThat(env(NodeAgentConfig.builder("n").hostPidBroker(sock)))
        .contains(entry("LIBVGPU_HOSTPID_BROKER", "1"));
    assertThat(env(NodeAgentConfig.builder("n").hostPidBroker(sock).monitor(false)))
        .doesNotContainKey("LIBVGPU_HOSTPID_BROKER");
    assertThat(env(NodeAgentConfig.builder("n"))).doesNotContainKey("LIBVGPU_HOSTPID_BROKER");
  }
}
