package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
import io.hami.plugins.nodelock.NodeLockIT.RecordingWaitingPod;
import io.hami.plugins.vgpu.SharedGpuState;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lock mode {@code scheduler}: no lock write on nodes whose agent needs none, one pod at a time.
 */
@EnableKubernetesMockClient(crud = true)
final class NodeLockSchedulerModeIT {

  static final Instant NOW = NodeLockIT.NOW;
  static final NodeLockArgs ARGS = NodeLockArgs.withMode(NodeLockArgs.MODE_SCHEDULER);

  KubernetesClient client;
  FakeHandle handle;
  NodeLockPlugin plugin;

  @BeforeEach
  void setUp() {
    client.nodes().delete();
    client.pods().inNamespace("default").delete();
    put(lockFreeNode("n1"));
    handle = new FakeHandle("hami-scheduler", new FakeClock(NOW));
    handle.withClient(client);
    plugin = NodeLockPlugin.create(ARGS, handle, new SharedGpuState());
    handle.fireNodeAdd(client.nodes().withName("n1").get());
  }

  static Node lockFreeNode(String name) {
    Node n = MakeNode.named(name).obj();
    n.getMetadata().getAnnotations().put(Annotations.NODE_NVIDIA_REGISTER, "[]");
    n.getMetadata().getAnnotations().put(Annotations.NODE_LOCK_FREE, "true");
    return n;
  }

  void put(Node n) {
    client.nodes().resource(n).createOr(NonDeletingOperation::update);
  }

  static Pod pod(String name) {
    return MakePod.named(name).namespace("default").uid("uid-" + name).obj();
  }

  static Pod withAnnotation(Pod p, String key, String value) {
    return new PodBuilder(p).editMetadata().addToAnnotations(key, value).endMetadata().build();
  }

  /** A pod bound to n1 and waiting for Allocate, as the binding leaves it. */
  static Pod allocating(String name, Instant boundAt) {
    Pod p = pod(name);
    p.getSpec().setNodeName("n1");
    p = withAnnotation(p, Annotations.BIND_PHASE, "allocating");
    p = withAnnotation(p, Annotations.VGPU_NODE, "n1");
    return withAnnotation(p, Annotations.BIND_TIME, Long.toString(boundAt.getEpochSecond()));
  }

  String lockValue(String node) {
    return client
        .nodes()
        .withName(node)
        .get()
        .getMetadata()
        .getAnnotations()
        .get(Annotations.MUTEX_LOCK);
  }

  @Test
  void markedNode_takesNoLockWrite_andKeepsOnePodUntilTheAgentServesIt() {
    Pod a = pod("a");
    assertThat(NodeLockIT.bind(plugin, NodeLockIT.gpuState(), a).isSuccess()).isTrue();
    assertThat(lockValue("n1")).isNull();

    Pod b = pod("b");
    CycleState sb = NodeLockIT.gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().code()).isEqualTo(Code.WAIT);
    RecordingWaitingPod waiting = new RecordingWaitingPod(b);
    handle.putWaitingPod("uid-b", waiting);

    handle.firePodUpdate(a, withAnnotation(a, Annotations.BIND_PHASE, "allocating"));
    assertThat(waiting.allowedBy).isEmpty();
    handle.firePodUpdate(a, withAnnotation(a, Annotations.BIND_PHASE, "success"));
    assertThat(waiting.allowedBy).containsExactly(NodeLockPlugin.NAME);
    assertThat(plugin.preBind(sb, b, "n1").isSuccess()).isTrue();
    assertThat(lockValue("n1")).isNull();
  }

  @Test
  void unmarkedNode_stillGetsTheNodeLock() {
    put(MakeNode.named("n2").obj());
    handle.fireNodeAdd(client.nodes().withName("n2").get());
    Pod a = pod("a");
    CycleState s = NodeLockIT.gpuState();
    plugin.reserve(s, a, "n2");
    assertThat(plugin.permit(s, a, "n2").status().isSuccess()).isTrue();
    assertThat(plugin.preBind(s, a, "n2").isSuccess()).isTrue();
    assertThat(lockValue("n2")).endsWith(",default,a");
  }

  @Test
  void aClaimNeverServed_expiresAfterTheLockTimeout() {
    assertThat(NodeLockIT.bind(plugin, NodeLockIT.gpuState(), pod("a")).isSuccess()).isTrue();
    Pod b = pod("b");
    CycleState sb = NodeLockIT.gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().code()).isEqualTo(Code.WAIT);
    plugin.unreserve(sb, b, "n1");

    ((FakeClock) handle.clock()).advance(ARGS.lockTimeout());
    CycleState again = NodeLockIT.gpuState();
    plugin.reserve(again, b, "n1");
    assertThat(plugin.permit(again, b, "n1").status().isSuccess()).isTrue();
    assertThat(plugin.brokenLocks(StaleCause.EXPIRED)).isEqualTo(1);
  }

  @Test
  void afterARestart_aPodStillWaitingForAllocate_holdsItsNode() {
    Pod a = allocating("a", NOW.minusSeconds(10));
    handle.firePodAdd(a);
    Pod b = pod("b");
    CycleState sb = NodeLockIT.gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().code()).isEqualTo(Code.WAIT);
    RecordingWaitingPod waiting = new RecordingWaitingPod(b);
    handle.putWaitingPod("uid-b", waiting);

    handle.firePodDelete(a);
    assertThat(waiting.allowedBy).containsExactly(NodeLockPlugin.NAME);
  }

  @Test
  void afterARestart_aPodBoundLongerAgoThanTheLockTimeout_holdsNothing() {
    handle.firePodAdd(allocating("a", NOW.minus(ARGS.lockTimeout()).minusSeconds(1)));
    Pod b = pod("b");
    CycleState sb = NodeLockIT.gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().isSuccess()).isTrue();
  }

  @Test
  void startup_isRefusedWhileANodeRegistersDevicesThroughALockingDevicePlugin() {
    Node hami = MakeNode.named("gpu-7").obj();
    hami.getMetadata().getAnnotations().put(Annotations.NODE_NVIDIA_REGISTER, "[]");
    put(hami);
    put(MakeNode.named("cpu-only").obj());

    assertThatThrownBy(() -> NodeLockPlugin.create(ARGS, handle, new SharedGpuState()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gpu-7")
        .hasMessageContaining(Annotations.NODE_LOCK_FREE)
        .hasMessageContaining("mode: node")
        .message()
        .doesNotContain("cpu-only")
        .doesNotContain("n1");

    // The default mode starts anyway: every node gets HAMi's lock.
    FakeHandle fresh = new FakeHandle("hami-scheduler", new FakeClock(NOW));
    fresh.withClient(client);
    assertThat(NodeLockPlugin.create(NodeLockArgs.DEFAULTS, fresh, new SharedGpuState()))
        .isNotNull();
  }

  @Test
  void args_refuseAnUnknownMode() {
    FieldErrors e = FieldErrors.at("args");
    new NodeLockArgs(300, 300, 5, "memory", 0).validate(e);
    assertThat(e.messages()).singleElement().asString().contains("mode").contains("memory");
    FieldErrors ok = FieldErrors.at("args");
    ARGS.validate(ok);
    assertThat(ok.isEmpty()).isTrue();
    assertThat(ARGS.lockTimeout()).isEqualTo(Duration.ofSeconds(300));
  }
}
