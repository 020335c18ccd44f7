package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.MakeNode;
import io.hami.kube.KubeClients;
import io.hami.kube.WriteRetry;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import io.hami.model.testing.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 22: a lock patch the API server applied whose answer was lost. With the client's own
 * retries the repeated patch conflicts with the lock it wrote; without any left the patch fails
 * with no code. Either way the lock is ours, and a PreBind that failed would leave it held.
 */
@EnableKubernetesMockClient(crud = true, https = false)
final class NodeLockLostAnswerIT {
  static final Instant NOW = Instant.parse("2026-08-21T08:20:39Z");

  KubernetesClient client;
  KubernetesMockServer server;

  private @Nullable FaultProxy proxy;
  private @Nullable KubernetesClient faulty;

  @BeforeEach
  void setUp() {
    client.nodes().resource(MakeNode.named("n1").obj()).createOr(NonDeletingOperation::update);
  }

  @AfterEach
  void tearDown() {
    if (faulty != null) {
      faulty.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    client.nodes().withName("n1").delete();
  }

  /** Locks through a proxy that gives the first {@code faults} writes {@code fault}. */
  private NodeLockClient locks(FaultProxy.Fault fault, long faults, int clientRetries) {
    proxy =
        FaultProxy.start(
                new InetSocketAddress("127.0.0.1", server.getPort()),
                1,
                Duration.ofMillis(10),
                22,
                EnumSet.of(fault))
            .limit(faults);
    Config config = Config.empty();
    config.setMasterUrl(proxy.url());
    config.setRequestRetryBackoffLimit(clientRetries);
    config.setRequestRetryBackoffInterval(10);
    faulty = KubeClients.builder(config).build();
    return new NodeLockClient(
        faulty, new LockArbiter(Duration.ofMinutes(5)), new FakeClock(NOW), ZoneOffset.UTC, 5);
  }

  private long lostAnswers() {
    return proxy == null ? 0 : proxy.injected(FaultProxy.Fault.LOST_ANSWER);
  }

  private boolean lockedByA() {
    String v =
        client
            .nodes()
            .withName("n1")
            .get()
            .getMetadata()
            .getAnnotations()
            .get(Annotations.MUTEX_LOCK);
    return v != null && NodeLock.decode(v).map(l -> l.isHeldBy("default", "a")).orElse(false);
  }

  @ParameterizedTest(name = "client retries={0}")
  @ValueSource(ints = {0, 3})
  void aLockWrittenWhoseAnswerWasLost_isAcquired(int clientRetries) {
    NodeLockClient locks = locks(FaultProxy.Fault.LOST_ANSWER, 1, clientRetries);
    Node seen = client.nodes().withName("n1").get();

    assertThat(locks.acquire("n1", "default", "a", seen))
        .isEqualTo(new NodeLockClient.Result.Acquired(null));

    assertThat(lostAnswers()).isEqualTo(1);
    assertThat(lockedByA()).isTrue();
  }

  @ParameterizedTest(name = "client retries={0}")
  @ValueSource(ints = {0, 3})
  void aLockWrittenAfterARead_whoseAnswerWasLost_isAcquired(int clientRetries) {
    NodeLockClient locks = locks(FaultProxy.Fault.LOST_ANSWER, 1, clientRetries);

    assertThat(locks.acquire("n1", "default", "a"))
        .isEqualTo(new NodeLockClient.Result.Acquired(null));

    assertThat(lostAnswers()).isEqualTo(1);
    assertThat(lockedByA()).isTrue();
  }

  @ParameterizedTest(name = "client retries={0}")
  @ValueSource(ints = {0, 3})
  void aRemovalWhoseAnswerWasLost_isARelease(int clientRetries) {
    Node n = client.nodes().withName("n1").get();
    n.getMetadata()
        .getAnnotations()
        .put(
            Annotations.MUTEX_LOCK,
            NodeLock.of(NOW.atOffset(ZoneOffset.UTC), "default", "a").encode());
    client.nodes().resource(n).update();
    NodeLockClient locks = locks(FaultProxy.Fault.LOST_ANSWER, 1, clientRetries);

    assertThat(locks.release("n1", "default", "a")).isTrue();

    assertThat(lostAnswers()).isEqualTo(1);
    assertThat(lockedByA()).isFalse();
  }

  @Test
  void aWriteNeverApplied_stillFails() {
    NodeLockClient locks = locks(FaultProxy.Fault.TIMEOUT, Long.MAX_VALUE, 0);

    assertThatThrownBy(() -> locks.acquire("n1", "default", "a"))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> assertThat(WriteRetry.outcomeUnknown(e)).as("%s", e).isTrue());
    assertThat(lockedByA()).isFalse();
  }
}
