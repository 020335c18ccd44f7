package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hami.framework.config.ConfigException;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.plugins.GpuPlugins;
import org.junit.jupiter.api.Test;

/** The {@code nodelock} arguments as a configuration file gives them. */
class NodeLockArgsTest {

  static Registry registry() {
    Registry r = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(r::register);
    return r;
  }

  static String config(String args) {
    return """
        apiVersion: hami.io/v1
        kind: SchedulerConfiguration
        profiles:
          - schedulerName: hami-scheduler
            pluginConfig:
              - name: nodelock
                args:
        """
        + args;
  }

  static NodeLockArgs parse(String args) {
    return (NodeLockArgs)
        new ConfigLoader(registry())
            .parse(config(args), "test.yaml")
            .profiles()
            .get(0)
            .pluginArgs()
            .get(NodeLockPlugin.NAME);
  }

  @Test
  void modeDefaultsToTheNodeLock() {
    NodeLockArgs a = parse("          lockTimeoutSeconds: 120\n");
    assertThat(a.mode()).isEqualTo(NodeLockArgs.MODE_NODE);
    assertThat(a.lockFree()).isFalse();
    assertThat(a.lockTimeoutSeconds()).isEqualTo(120);
  }

  @Test
  void modeScheduler_isLockFree() {
    NodeLockArgs a = parse("          mode: scheduler\n");
    assertThat(a.lockFree()).isTrue();
    assertThat(a.waitTimeoutSeconds()).isEqualTo(NodeLockArgs.DEFAULTS.waitTimeoutSeconds());
  }

  @Test
  void anUnknownMode_isRefusedByName() {
    assertThatThrownBy(() -> parse("          mode: off\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("mode")
        .hasMessageContaining("off")
        .hasMessageContaining("node, scheduler");
  }

  @Test
  void maxBusyNodes_defaultsToNoLimit_andIsRead() {
    assertThat(parse("          mode: node\n").maxBusyNodes()).isZero();
    assertThat(parse("          maxBusyNodes: 16\n").maxBusyNodes()).isEqualTo(16);
  }

  @Test
  void aNegativeMaxBusyNodes_isRefusedByName() {
    assertThatThrownBy(() -> parse("          maxBusyNodes: -1\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("maxBusyNodes")
        .hasMessageContaining("-1")
        .hasMessageContaining("0..100000");
  }
}
