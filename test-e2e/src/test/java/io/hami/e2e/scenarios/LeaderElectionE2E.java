package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.GpuNode;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.model.Annotations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code hami scheduler} processes competing for one Lease: exactly one schedules; when it is
 * killed (SIGKILL, so the lease is not released), the other takes the lease once it expires and
 * binds the pods that arrive meanwhile. A leader stopped with SIGTERM releases the lease, so a
 * third replica takes over at once. Every pod is bound once, by one replica.
 */
@ExtendWith(ControlPlaneExtension.class)
class LeaderElectionE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String LEASE = "hami-scheduler-e2e";
  private static final int LEASE_SECONDS = 5;
  private static final int RETRY_SECONDS = 1;
  private static final int PODS = 5;

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();
  private final List<SchedulerProcess> replicas = new ArrayList<>();

  @AfterEach
  void stopAndCheck(KubernetesClient client, TestNamespace ns) throws Exception {
    replicas.forEach(SchedulerProcess::close);
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private static boolean done(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    return p.getSpec().getNodeName() != null
        && a != null
        && "success".equals(a.get(Annotations.BIND_PHASE))
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase());
  }

  private static void awaitDone(KubernetesClient client, TestNamespace ns, int count) {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> client.pods().inNamespace(ns.name()).list().getItems(),
            ps -> ps.size() == count && ps.stream().allMatch(LeaderElectionE2E::done));
  }

  @Test
  void oneReplicaLeadsAndBinds_andWhenItIsKilledTheOtherTakesOverWithinTheLease(
      KubernetesClient client, TestNamespace ns, ControlPlane cp) throws Exception {
    GpuNode node =
        GpuNode.start(
            client,
            dir,
            ns.name() + "-n",
            10,
            List.of(GpuNode.gpu(0, 16000), GpuNode.gpu(1, 16000)));
    nodes.add(node);
    Path config =
        SchedulerProcess.configWith(
            dir,
            "leader-election.yaml",
            Map.of(
                "leaseNamespace", ns.name(),
                "leaseName", LEASE,
                "leaseDurationSeconds", Integer.toString(LEASE_SECONDS),
                "renewDeadlineSeconds", "4",
                "retryPeriodSeconds", Integer.toString(RETRY_SECONDS)));
    replicas.add(SchedulerProcess.start(cp, config, "replica-a", true));
    replicas.add(SchedulerProcess.start(cp, config, "replica-b", true));

    String holder =
        await()
            .atMost(PATIENCE)
            .until(() -> SchedulerProcess.holderOf(client, ns.name(), LEASE), Objects::nonNull);
    SchedulerProcess leader =
        replicas.stream().filter(r -> r.identity().equals(holder)).findFirst().orElseThrow();
    SchedulerProcess standby = replicas.stream().filter(r -> r != leader).findFirst().orElseThrow();
    leader.awaitLog("scheduling started", PATIENCE);

    for (int i = 0; i < PODS; i++) {
      client
          .pods()
          .inNamespace(ns.name())
          .resource(GpuPods.named("first-" + i).gpu(1, 1000, 10).on(node.name()).build())
          .create();
    }
    awaitDone(client, ns, PODS);
    assertThat(leader.scheduled())
        .as("pods bound by the leader %s", leader.identity())
        .isEqualTo(PODS);
    assertThat(standby.scheduled()).as("pods bound by the standby %s", standby.identity()).isZero();
    assertThat(standby.log()).doesNotContain("scheduling started");
    assertThat(SchedulerProcess.holderOf(client, ns.name(), LEASE)).isEqualTo(leader.identity());

    long killed = System.nanoTime();
    leader.kill();
    for (int i = 0; i < PODS; i++) {
      client
          .pods()
          .inNamespace(ns.name())
          .resource(GpuPods.named("second-" + i).gpu(1, 1000, 10).on(node.name()).build())
          .create();
    }
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> standby.identity().equals(SchedulerProcess.holderOf(client, ns.name(), LEASE)));
    Duration takeover = Duration.ofNanos(System.nanoTime() - killed);
    awaitDone(client, ns, 2 * PODS);
    Duration recovered = Duration.ofNanos(System.nanoTime() - killed);

    Lease lease = client.leases().inNamespace(ns.name()).withName(LEASE).get();
    assertThat(lease.getSpec().getLeaseTransitions())
        .as("lease transitions")
        .isGreaterThanOrEqualTo(1);
    assertThat(standby.log()).contains("scheduling started");
    assertThat(standby.scheduled())
        .as("pods bound by the new leader %s", standby.identity())
        .isEqualTo(PODS);
    for (Pod p : client.pods().inNamespace(ns.name()).list().getItems()) {
      assertThat(p.getSpec().getNodeName()).as(p.getMetadata().getName()).isEqualTo(node.name());
    }
    assertThat(takeover)
        .as("time from the leader's death to the takeover")
        .isLessThan(Duration.ofSeconds(LEASE_SECONDS + RETRY_SECONDS + 5));

    // A rolling update: the leader stopped with SIGTERM gives the lease up, so a new replica
    // takes it without waiting for it to expire.
    SchedulerProcess successor = SchedulerProcess.start(cp, config, "replica-c", true);
    replicas.add(successor);
    long terminated = System.nanoTime();
    int exit = standby.terminate();
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> successor.identity().equals(SchedulerProcess.holderOf(client, ns.name(), LEASE)));
    Duration handover = Duration.ofNanos(System.nanoTime() - terminated);
    for (int i = 0; i < PODS; i++) {
      client
          .pods()
          .inNamespace(ns.name())
          .resource(GpuPods.named("third-" + i).gpu(1, 1000, 10).on(node.name()).build())
          .create();
    }
    awaitDone(client, ns, 3 * PODS);
    // 143 is how a JVM ends on SIGTERM once its shutdown hooks are done.
    assertThat(exit).as("exit code of %s on SIGTERM", standby.identity()).isIn(0, 143);
    assertThat(standby.log()).contains("scheduler stopped with code 0");
    assertThat(successor.scheduled()).as("pods bound by %s", successor.identity()).isEqualTo(PODS);
    assertThat(node.allocateErrors()).isEmpty();

    System.out.printf(
        "e2e: leader election (lease %d s, retry %d s): %s killed; %s took the lease after %d ms;"
            + " all %d new pods running %d ms after the kill; %s stopped with SIGTERM, %s took the lease after %d ms%n",
        LEASE_SECONDS,
        RETRY_SECONDS,
        leader.identity(),
        standby.identity(),
        takeover.toMillis(),
        PODS,
        recovered.toMillis(),
        standby.identity(),
        successor.identity(),
        handover.toMillis());
    assertThat(handover)
        .as("time from SIGTERM of the leader to the takeover, the lease being released")
        .isLessThan(Duration.ofSeconds(LEASE_SECONDS));
  }
}
