package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.runtime.ClientRequestMetrics;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The lock's first attempt on the node the informer saw, against fabric8's CRUD mock server. */
@EnableKubernetesMockClient(crud = true)
final class NodeLockClientIT {
  static final Instant NOW = Instant.parse("2026-08-21T08:20:39Z");

  KubernetesClient client;
  KubernetesClient counted;
  PrometheusRegistry registry;
  NodeLockClient locks;

  @BeforeEach
  void setUp() {
    client.nodes().withName("n1").delete();
    client.nodes().resource(MakeNode.named("n1").obj()).createOr(NonDeletingOperation::update);
    ClientRequestMetrics metrics = new ClientRequestMetrics();
    registry = new PrometheusRegistry();
    metrics.register(registry);
    counted = metrics.clientBuilder(client.getConfiguration()).build();
    locks =
        new NodeLockClient(
            counted, new LockArbiter(Duration.ofMinutes(5)), new FakeClock(NOW), ZoneOffset.UTC, 5);
  }

  @AfterEach
  void tearDown() {
    counted.close();
  }

  private Node server() {
    return client.nodes().withName("n1").get();
  }

  private String lockOnServer() {
    return server().getMetadata().getAnnotations().get(Annotations.MUTEX_LOCK);
  }

  private double requests(String verb) {
    return registry.scrape().stream()
        .filter(s -> s instanceof CounterSnapshot)
        .map(s -> (CounterSnapshot) s)
        .flatMap(s -> s.getDataPoints().stream())
        .filter(
            d ->
                verb.equals(d.getLabels().get("verb"))
                    && "nodes".equals(d.getLabels().get("resource")))
        .mapToDouble(CounterSnapshot.CounterDataPointSnapshot::getValue)
        .sum();
  }

  @Test
  void currentSeenNode_isLockedWithOnePatchAndNoRead() throws Exception {
    Node seen = server();

    assertThat(locks.acquire("n1", "default", "a", seen))
        .isInstanceOf(NodeLockClient.Result.Acquired.class);

    assertThat(NodeLock.decode(lockOnServer()).orElseThrow().isHeldBy("default", "a")).isTrue();
    assertThat(requests("get")).isZero();
    assertThat(requests("patch")).isEqualTo(1);
  }

  @Test
  void seenNodeChangedSince_conflicts_thenTheNodeIsReadAndLocked() throws Exception {
    Node seen = server();
    client
        .nodes()
        .withName("n1")
        .edit(
            n -> {
              n.getMetadata().getAnnotations().put("other", "change");
              return n;
            });

    assertThat(locks.acquire("n1", "default", "a", seen))
        .isInstanceOf(NodeLockClient.Result.Acquired.class);

    assertThat(NodeLock.decode(lockOnServer()).orElseThrow().isHeldBy("default", "a")).isTrue();
    assertThat(server().getMetadata().getAnnotations()).containsEntry("other", "change");
    assertThat(requests("get")).isEqualTo(1);
    assertThat(requests("patch")).isEqualTo(2);
  }

  @Test
  void seenNodeLockedSinceByALiveHolder_isNotOverwritten() {
    client
        .pods()
        .inNamespace("default")
        .resource(MakePod.named("b").namespace("default").uid("uid-b").obj())
        .createOr(NonDeletingOperation::update);
    Node seen = server();
    String theirs = NodeLock.of(NOW.atOffset(ZoneOffset.UTC), "default", "b").encode();
    client
        .nodes()
        .withName("n1")
        .edit(
            n -> {
              n.getMetadata().getAnnotations().put(Annotations.MUTEX_LOCK, theirs);
              return n;
            });

    NodeLockClient.Result r = locks.acquire("n1", "default", "a", seen);

    assertThat(r).isInstanceOf(NodeLockClient.Result.Held.class);
    assertThat(lockOnServer()).isEqualTo(theirs);
    assertThat(requests("patch")).isEqualTo(1);
    assertThat(requests("get")).isEqualTo(1);
  }

  @Test
  void seenLock_isNotTrusted_theNodeIsRead() throws Exception {
    Node seen = server();
    seen.getMetadata()
        .getAnnotations()
        .put(
            Annotations.MUTEX_LOCK,
            NodeLock.of(NOW.atOffset(ZoneOffset.UTC), "default", "gone").encode());

    assertThat(locks.acquire("n1", "default", "a", seen))
        .isInstanceOf(NodeLockClient.Result.Acquired.class);

    assertThat(NodeLock.decode(lockOnServer()).orElseThrow().isHeldBy("default", "a")).isTrue();
    assertThat(requests("get")).isEqualTo(1);
    assertThat(requests("patch")).isEqualTo(1);
  }
}
