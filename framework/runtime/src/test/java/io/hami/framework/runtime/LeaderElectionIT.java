package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.config.LeaderElectionConfig;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Active-passive replicas on a Lease: one schedules, the other waits with warm caches. */
@EnableKubernetesMockClient(crud = true, https = false)
class LeaderElectionIT {
  static KubernetesClient client;

  private static SchedulerConfiguration config() {
    SchedulerConfiguration d = SchedulerConfiguration.defaults();
    return new SchedulerConfiguration(
        2,
        d.percentageOfNodesToScore(),
        d.queueTimeouts(),
        d.assumedPodTtl(),
        new LeaderElectionConfig(
            "default",
            "hami-scheduler",
            Duration.ofSeconds(4),
            Duration.ofSeconds(3),
            Duration.ofMillis(500)),
        d.profiles());
  }

  private static SchedulerService replica(String id) {
    return new SchedulerService(
        client,
        config(),
        BuiltInPlugins.registry(),
        new SchedulerService.Options(true, id, null, 50, 100, 2));
  }

  @Test
  void oneReplicaLeads_theStandbyIsReadyButIdle() throws Exception {
    try (SchedulerService a = replica("replica-a")) {
      a.start(Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(20)).until(a::isLeading);
      try (SchedulerService b = replica("replica-b")) {
        b.start(Duration.ofSeconds(30));
        assertThat(b.isReady()).isTrue();
        Thread.sleep(1500);
        assertThat(b.isLeading()).isFalse();
        Lease lease = client.leases().inNamespace("default").withName("hami-scheduler").get();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("replica-a");
      }
    }
  }
}
