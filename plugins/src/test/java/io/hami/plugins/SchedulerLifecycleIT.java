package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.Scheduler;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Schedulers built and closed one after another in one JVM (the CLI's {@code hami up}, benchmarks,
 * ITs) leave nothing running: the vgpu plugin's handshake thread and ResourceQuota informer stop
 * when the scheduler closes.
 */
@EnableKubernetesMockClient(crud = true)
class SchedulerLifecycleIT {
  static final Path CONFIG = Path.of("..", "config", "scheduler", "scheduler-config.yaml");
  private static final int ROUNDS = 10;

  KubernetesClient client;

  private void buildAndClose(long others) {
    Registry r = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(r::register);
    SchedulerConfiguration cfg = new ConfigLoader(r).load(CONFIG);
    Scheduler s = Scheduler.builder(cfg, r).client(client).build();
    assertThat(handshakeThreads()).isGreaterThan(others);
    s.close();
  }

  private static long handshakeThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("hami-gpu-handshake"))
        .count();
  }

  @Test
  void buildingAndClosingASchedulerManyTimes_leavesNoExtraThreads() {
    // Schedulers of other tests in this JVM may still run theirs.
    long others = handshakeThreads();
    buildAndClose(others); // the client's own pools start here
    await().atMost(Duration.ofSeconds(10)).until(() -> handshakeThreads() <= others);
    int before = Thread.activeCount();

    for (int i = 0; i < ROUNDS; i++) {
      buildAndClose(others);
    }

    await().atMost(Duration.ofSeconds(10)).until(() -> handshakeThreads() <= others);
    // The client's shared pools may keep an idle thread or two; a leak grows with every round.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(Thread.activeCount()).isLessThan(before + ROUNDS / 2));
    assertThat(client.resourceQuotas().inAnyNamespace().list().getItems()).isEmpty();
  }
}
