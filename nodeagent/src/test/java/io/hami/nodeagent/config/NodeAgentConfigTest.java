package io.hami.nodeagent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeAgentConfigTest {

  @Test
  void defaultsAreValidAndSocketFollowsTheResource() {
    NodeAgentConfig c = NodeAgentConfig.builder("n").build();
    assertThat(c.problems()).isEmpty();
    assertThat(c.socketName()).isEqualTo("nvidia-gpu.sock");
    assertThat(c.splitCount()).isEqualTo(10);
    assertThat(c.registerInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.registerErrorInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.allowDisableControl()).isFalse();
    assertThat(c.toBuilder().resourceName("hami.io/vgpu").build().socketName())
        .isEqualTo("nvidia-vgpu.sock");
  }

  @Test
  void everyProblemIsNamed() {
    NodeAgentConfig c =
        NodeAgentConfig.builder(" ")
            .resourceName("a/b/c")
            .splitCount(0)
            .coreScaling(0)
            .preConfiguredMemoryMiB(-1)
            .registerInterval(Duration.ZERO)
            .registerErrorInterval(Duration.ofSeconds(-1))
            .build();
    assertThat(c.problems())
        .containsExactly(
            "node name: must be set (--node-name or NODE_NAME)",
            "resource name: 'a/b/c' is not <domain>/<name>",
            "device split count: 0 is not in 1..1024",
            "device core scaling: 0.0 must be > 0",
            "preconfigured device memory: -1 must be >= 0",
            "register interval: PT0S must be > 0",
            "register error interval: PT-1S must be > 0");
  }

  @Test
  void healthCheckEnv() {
    List<String> errors = new ArrayList<>();
    assertThat(HealthCheckPolicy.fromEnv(null, null, errors))
        .isEqualTo(HealthCheckPolicy.defaults());
    assertThat(HealthCheckPolicy.fromEnv("all", null, errors).enabled()).isFalse();
    assertThat(HealthCheckPolicy.fromEnv("xids", null, errors).enabled()).isFalse();
    HealthCheckPolicy p = HealthCheckPolicy.fromEnv("48, 79", "13", errors);
    assertThat(p.marksUnhealthy(48)).isFalse();
    assertThat(p.marksUnhealthy(79)).isFalse();
    assertThat(p.marksUnhealthy(13)).isTrue();
    assertThat(p.marksUnhealthy(31)).isFalse();
    assertThat(p.marksUnhealthy(94)).isTrue();
    assertThat(errors).isEmpty();
    HealthCheckPolicy.fromEnv("x", "-3", errors);
    assertThat(errors)
        .containsExactly(
            "DP_DISABLE_HEALTHCHECKS: 'x' is not an XID number, 'all' or 'xids'",
            "DP_ENABLE_HEALTHCHECKS: '-3' is not an XID number, 'all' or 'xids'");
  }
}
