package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.testing.FakeClock;
import io.hami.model.Annotations;
import io.hami.model.handshake.Handshake;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node handshake against fabric8's CRUD mock server: the monitor writes {@code Requesting_}
 * with resourceVersion-guarded patches; a node whose agent never answers is withdrawn once its
 * request expires, one whose agent answers stays schedulable.
 */
@EnableKubernetesMockClient(crud = true)
final class HandshakeIT {

  KubernetesClient client;

  static final Instant T0 = Instant.parse("2026-08-21T08:20:39Z");
  static final Duration PERIOD = Duration.ofSeconds(15);
  static final List<GpuVendor> VENDORS = GpuVendors.accounted();

  final FakeClock clock = new FakeClock(T0);
  DeviceUsageIndex index;
  HandshakeMonitor monitor;
  final NodePlacer placer = NodePlacer.standard();
  final PodRequests oneGpu =
      PodRequests.single(new VendorRequest("NVIDIA", 1, 1000, VendorRequest.PERCENT_UNSET, 0));

  @BeforeEach
  void setUp() {
    index =
        new DeviceUsageIndex(
            ModelReaders.nodeReader(VENDORS, clock, ZoneOffset.UTC),
            ModelReaders.podReader(VENDORS),
            (n, r) -> {},
            ModelReaders.registrationKeys(VENDORS));
    monitor =
        new HandshakeMonitor(
            VENDORS, clock, ZoneOffset.UTC, PERIOD, HandshakeMonitor.apiWriter(client));
    monitor.addIndex(index);
    for (String name : List.of("alive", "dead")) {
      client.nodes().withName(name).delete();
      // No allocatable: only the handshake can tell whether the agent is there.
      Node n = MakeGpuNode.named(name).gpus(FakeGpus.t4s(name, 2)).withoutAllocatable().obj();
      client.nodes().resource(n).createOr(NonDeletingOperation::update);
    }
    sync();
  }

  /** What an informer would deliver: the server's current nodes. */
  void sync() {
    for (Node n : client.nodes().list().getItems()) {
      index.upsertNode(n);
      monitor.listener().onNodeUpdate(n, n);
    }
  }

  String handshake(String node) {
    Map<String, String> a = client.nodes().withName(node).get().getMetadata().getAnnotations();
    return a.get(Annotations.NODE_HANDSHAKE);
  }

  /** The live agent: answers a request with a report, as the node agent does. */
  void agentAnswers() {
    String h = handshake("alive");
    if (h != null && Handshake.parse(h) instanceof Handshake.Requesting) {
      client
          .nodes()
          .withName("alive")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"annotations\":{\""
                  + Annotations.NODE_HANDSHAKE
                  + "\":\"Reported 2026-08-21 08:21:00 +0000 UTC\"}}}");
    }
  }

  void round() {
    monitor.runOnce();
    sync();
    agentAnswers();
    sync();
  }

  boolean schedulable(String node) {
    return placer.feasible(index.node(node), oneGpu, PodGpuOptions.DEFAULT) == null;
  }

  @Test
  void silentNodeIsWithdrawnAfterTheTimeoutAndAnsweringNodeStays() {
    round();
    assertThat(handshake("dead")).isEqualTo("Requesting_2026-08-21 08:20:39");
    assertThat(handshake("alive")).startsWith("Reported ");
    assertThat(schedulable("dead")).isTrue();

    // Rounds every 15 s; the silent node's request expires 60 s after it was written.
    for (int i = 1; i <= 3; i++) {
      clock.advance(PERIOD);
      round();
      assertThat(schedulable("dead")).as("before expiry, round %d", i).isTrue();
      assertThat(monitor.state("dead", "NVIDIA")).isEqualTo(HandshakeMonitor.State.REQUESTING);
    }
    clock.advance(PERIOD);
    round();
    assertThat(monitor.state("dead", "NVIDIA")).isEqualTo(HandshakeMonitor.State.UNHEALTHY);
    assertThat(schedulable("dead")).isFalse();
    assertThat(placer.feasible(index.node("dead"), oneGpu, PodGpuOptions.DEFAULT).codes())
        .containsExactly("CardNotHealth");
    // v2.10 clean-up removed the key.
    assertThat(handshake("dead")).isNull();
    assertThat(schedulable("alive")).isTrue();
    assertThat(monitor.counts())
        .containsEntry(List.of("unhealthy", "NVIDIA"), 1L)
        .containsEntry(List.of("reported", "NVIDIA"), 1L);

    // Our own fresh request does not bring the silent node back.
    clock.advance(PERIOD);
    round();
    assertThat(Handshake.parse(handshake("dead"))).isInstanceOf(Handshake.Requesting.class);
    assertThat(schedulable("dead")).isFalse();

    // Its agent comes back and answers: schedulable at once.
    client
        .nodes()
        .withName("dead")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + Annotations.NODE_HANDSHAKE
                + "\":\"Reported_2026-08-21 08:23:00\"}}}");
    sync();
    assertThat(schedulable("dead")).isTrue();
    for (int i = 0; i < 8; i++) {
      clock.advance(PERIOD);
      round();
      assertThat(schedulable("alive")).isTrue();
    }
  }

  @Test
  void allocatableKeepsAnExpiredNodeHealthy() {
    Node n = MakeGpuNode.named("dead").gpus(FakeGpus.t4s("dead", 2)).obj();
    n.getMetadata()
        .setResourceVersion(
            client.nodes().withName("dead").get().getMetadata().getResourceVersion());
    client.nodes().resource(n).update();
    sync();
    for (int i = 0; i < 6; i++) {
      monitor.runOnce();
      sync();
      clock.advance(PERIOD);
    }
    monitor.runOnce();
    assertThat(monitor.state("dead", "NVIDIA")).isEqualTo(HandshakeMonitor.State.EXPIRED);
    assertThat(schedulable("dead")).isTrue();
  }

  @Test
  void aNodeIsWrittenAtMostOncePerPeriod() {
    monitor.runOnce();
    sync();
    String rv = client.nodes().withName("alive").get().getMetadata().getResourceVersion();
    agentAnswers();
    sync();
    String answered = client.nodes().withName("alive").get().getMetadata().getResourceVersion();
    assertThat(answered).isNotEqualTo(rv);
    // The report arrives within the same period: no second request yet.
    clock.advance(Duration.ofSeconds(5));
    monitor.runOnce();
    assertThat(client.nodes().withName("alive").get().getMetadata().getResourceVersion())
        .isEqualTo(answered);
    clock.advance(PERIOD);
    monitor.runOnce();
    assertThat(handshake("alive")).startsWith("Requesting_");
  }

  @Test
  void aStaleResourceVersionWritesNothing() {
    // The monitor saw an older version of the node: its request must not overwrite the report.
    Node before = client.nodes().withName("alive").get();
    monitor.listener().onNodeUpdate(before, before);
    client
        .nodes()
        .withName("alive")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + Annotations.NODE_HANDSHAKE
                + "\":\"Reported_2026-08-21 08:20:30\"}}}");
    monitor.runOnce();
    assertThat(handshake("alive")).isEqualTo("Reported_2026-08-21 08:20:30");
  }
}
