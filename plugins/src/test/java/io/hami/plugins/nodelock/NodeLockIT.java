package io.hami.plugins.nodelock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.PermitResult;
import io.hami.framework.api.Status;
import io.hami.framework.api.WaitingPod;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
import io.hami.model.lock.NodeLock;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.PodRequests;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.VendorRequest;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The node lock against fabric8's CRUD mock server. */
@EnableKubernetesMockClient(crud = true)
final class NodeLockIT {

  KubernetesClient client;

  static final Instant NOW = Instant.parse("2026-08-21T08:20:39Z");

  FakeHandle handle;
  NodeLockPlugin plugin;

  @BeforeEach
  void setUp() {
    handle = newHandle();
    plugin = NodeLockPlugin.create(NodeLockArgs.DEFAULTS, handle, new SharedGpuState());
    client.nodes().withName("n1").delete();
    client.pods().inNamespace("default").delete();
    // createOr: a slow mock server can make the client retry a create that already succeeded.
    client.nodes().resource(MakeNode.named("n1").obj()).createOr(NonDeletingOperation::update);
  }

  FakeHandle newHandle() {
    FakeHandle h = new FakeHandle("hami-scheduler", new FakeClock(NOW));
    h.withClient(client);
    return h;
  }

  static CycleState gpuState() {
    CycleState s = new CycleState();
    s.write(
        VgpuPlugin.REQUESTS,
        new PodDeviceRequests(
            PodRequests.single(new VendorRequest("NVIDIA", 1, 100, VendorRequest.PERCENT_UNSET, 0)),
            PodGpuOptions.DEFAULT));
    return s;
  }

  Pod pod(String name) {
    return MakePod.named(name).namespace("default").uid("uid-" + name).obj();
  }

  String lockValue() {
    return client
        .nodes()
        .withName("n1")
        .get()
        .getMetadata()
        .getAnnotations()
        .get(Annotations.MUTEX_LOCK);
  }

  void setLock(String value) {
    client
        .nodes()
        .withName("n1")
        .edit(
            n -> {
              n.getMetadata().getAnnotations().put(Annotations.MUTEX_LOCK, value);
              return n;
            });
  }

  static String lock(Instant t, String ns, String name) {
    return NodeLock.of(t.atOffset(ZoneOffset.UTC), ns, name).encode();
  }

  /** Reserve, Permit and PreBind as the runtime runs them. */
  static Status bind(NodeLockPlugin p, CycleState s, Pod pod) {
    assertThat(p.reserve(s, pod, "n1").isSuccess()).isTrue();
    PermitResult pr = p.permit(s, pod, "n1");
    assertThat(pr.status().isSuccess()).isTrue();
    return p.preBind(s, pod, "n1");
  }

  @Test
  void freeNode_isLockedWithTimeNamespaceAndName_thenReleasedOnUnreserve() throws Exception {
    CycleState s = gpuState();
    Pod p = pod("a");
    assertThat(bind(plugin, s, p).isSuccess()).isTrue();
    NodeLock l = NodeLock.decode(lockValue()).orElseThrow();
    assertThat(l.namespace()).isEqualTo("default");
    assertThat(l.name()).isEqualTo("a");
    assertThat(l.time().toInstant()).isEqualTo(NOW);

    plugin.unreserve(s, p, "n1");
    assertThat(lockValue()).isNull();
  }

  @Test
  void release_leavesAnotherPodsLock_trap7() {
    String other = lock(NOW, "default", "other");
    setLock(other);
    NodeLockClient c =
        new NodeLockClient(
            client, new LockArbiter(Duration.ofMinutes(5)), handle.clock(), ZoneOffset.UTC, 3);
    assertThat(c.release("n1", "default", "a")).isFalse();
    assertThat(lockValue()).isEqualTo(other);
    assertThat(c.release("n1", "default", "other")).isTrue();
    assertThat(lockValue()).isNull();
  }

  @Test
  void podWithoutAppDevices_takesNoLock() {
    CycleState s = new CycleState();
    Pod p = pod("plain");
    assertThat(plugin.reserve(s, p, "n1").isSuccess()).isTrue();
    assertThat(plugin.permit(s, p, "n1").status().isSuccess()).isTrue();
    assertThat(plugin.preBind(s, p, "n1").code()).isEqualTo(Code.SKIP);
    assertThat(lockValue()).isNull();
  }

  record Stale(String name, Pod holder, Instant lockTime, StaleCause cause) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Stale> staleCases() {
    Instant fresh = NOW.minusSeconds(10);
    return Stream.of(
        new Stale(
            "expired, holder not bound",
            MakePod.named("h").namespace("default").obj(),
            NOW.minus(Duration.ofMinutes(6)),
            StaleCause.EXPIRED),
        new Stale(
            "holder terminal",
            MakePod.named("h").namespace("default").phase("Failed").obj(),
            fresh,
            StaleCause.HOLDER_TERMINAL),
        new Stale(
            "holder succeeded",
            MakePod.named("h").namespace("default").phase("Succeeded").obj(),
            fresh,
            StaleCause.HOLDER_TERMINAL),
        new Stale(
            "holder served",
            MakePod.named("h")
                .namespace("default")
                .nodeName("n1")
                .annotation(Annotations.BIND_PHASE, "success")
                .obj(),
            fresh,
            StaleCause.BIND_SUCCESS),
        new Stale(
            "holder failed allocation",
            MakePod.named("h")
                .namespace("default")
                .nodeName("n1")
                .annotation(Annotations.BIND_PHASE, "failed")
                .obj(),
            fresh,
            StaleCause.BIND_FAILED),
        new Stale(
            "holder bound elsewhere",
            MakePod.named("h").namespace("default").nodeName("n9").obj(),
            fresh,
            StaleCause.HOLDER_ELSEWHERE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("staleCases")
  void staleLock_isTakenOver(Stale c) {
    client
        .pods()
        .inNamespace("default")
        .resource(c.holder())
        .createOr(NonDeletingOperation::update);
    setLock(lock(c.lockTime(), "default", "h"));
    assertThat(bind(plugin, gpuState(), pod("a")).isSuccess()).isTrue();
    assertThat(lockValue()).endsWith(",default,a");
    assertThat(plugin.brokenLocks(c.cause())).isEqualTo(1);
  }

  @Test
  void lockOfDeletedHolder_isTakenOver() {
    setLock(lock(NOW.minusSeconds(5), "default", "gone"));
    assertThat(bind(plugin, gpuState(), pod("a")).isSuccess()).isTrue();
    assertThat(plugin.brokenLocks(StaleCause.HOLDER_GONE)).isEqualTo(1);
  }

  @Test
  void expiredLockOfHolderWaitingForAllocate_isNeverTaken() {
    client
        .pods()
        .inNamespace("default")
        .resource(
            MakePod.named("h")
                .namespace("default")
                .nodeName("n1")
                .annotation(Annotations.BIND_PHASE, "allocating")
                .obj())
        .createOr(NonDeletingOperation::update);
    String held = lock(NOW.minus(Duration.ofMinutes(30)), "default", "h");
    setLock(held);
    Status s = bind(plugin, gpuState(), pod("a"));
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(s.message()).contains("default/h");
    assertThat(lockValue()).isEqualTo(held);
  }

  @Test
  void blockedPod_isActivatedWhenTheLockIsRemoved() {
    client
        .pods()
        .inNamespace("default")
        .resource(
            MakePod.named("h")
                .namespace("default")
                .nodeName("n1")
                .annotation(Annotations.BIND_PHASE, "allocating")
                .obj())
        .createOr(NonDeletingOperation::update);
    setLock(lock(NOW, "default", "h"));
    Node locked = client.nodes().withName("n1").get();
    handle.fireNodeAdd(locked);
    Pod a = pod("a");
    assertThat(bind(plugin, gpuState(), a).code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(handle.activated()).isEmpty();

    // The node agent releases the lock after Allocate.
    Node released =
        client
            .nodes()
            .withName("n1")
            .edit(
                n -> {
                  n.getMetadata().getAnnotations().remove(Annotations.MUTEX_LOCK);
                  return n;
                });
    handle.fireNodeUpdate(locked, released);
    assertThat(handle.activated()).extracting(p -> p.getMetadata().getName()).containsExactly("a");
  }

  static final class RecordingWaitingPod implements WaitingPod {
    final Pod pod;
    final List<String> allowedBy = new ArrayList<>();

    RecordingWaitingPod(Pod pod) {
      this.pod = pod;
    }

    @Override
    public Pod pod() {
      return pod;
    }

    @Override
    public String nodeName() {
      return "n1";
    }

    @Override
    public Set<String> pendingPlugins() {
      return allowedBy.isEmpty() ? Set.of(NodeLockPlugin.NAME) : Set.of();
    }

    @Override
    public void allow(String pluginName) {
      allowedBy.add(pluginName);
    }

    @Override
    public void reject(String pluginName, String reason) {}
  }

  @Test
  void secondPodForTheNode_waitsAtPermitAndIsAllowedOnRelease() {
    Pod a = pod("a");
    Pod b = pod("b");
    CycleState sa = gpuState();
    CycleState sb = gpuState();
    assertThat(bind(plugin, sa, a).isSuccess()).isTrue();
    Node lockedNode = client.nodes().withName("n1").get();
    handle.fireNodeUpdate(lockedNode, lockedNode);

    assertThat(plugin.reserve(sb, b, "n1").isSuccess()).isTrue();
    PermitResult pr = plugin.permit(sb, b, "n1");
    assertThat(pr.status().code()).isEqualTo(Code.WAIT);
    RecordingWaitingPod waiting = new RecordingWaitingPod(b);
    handle.putWaitingPod("uid-b", waiting);

    // The node agent finishes Allocate for a and removes the lock.
    Node released =
        client
            .nodes()
            .withName("n1")
            .edit(
                n -> {
                  n.getMetadata().getAnnotations().remove(Annotations.MUTEX_LOCK);
                  return n;
                });
    handle.fireNodeUpdate(lockedNode, released);
    assertThat(waiting.allowedBy).containsExactly(NodeLockPlugin.NAME);
    assertThat(plugin.preBind(sb, b, "n1").isSuccess()).isTrue();
    assertThat(lockValue()).endsWith(",default,b");
  }

  @Test
  void servedHolder_handsTheNodeOnWhenTheAgentReleasesTheLock_notBefore() {
    Pod a = pod("a");
    CycleState sa = gpuState();
    assertThat(bind(plugin, sa, a).isSuccess()).isTrue();
    Node locked = client.nodes().withName("n1").get();
    handle.fireNodeUpdate(locked, locked);
    Pod b = pod("b");
    CycleState sb = gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().code()).isEqualTo(Code.WAIT);
    RecordingWaitingPod waiting = new RecordingWaitingPod(b);
    handle.putWaitingPod("uid-b", waiting);

    // The node agent reports a served first, then removes the lock (protocol 7.5 step 6).
    Pod served =
        new PodBuilder(a)
            .editMetadata()
            .addToAnnotations(Annotations.BIND_PHASE, "success")
            .endMetadata()
            .build();
    handle.firePodUpdate(a, served);
    assertThat(waiting.allowedBy).isEmpty();
    Node released =
        client
            .nodes()
            .withName("n1")
            .edit(
                n -> {
                  n.getMetadata().getAnnotations().remove(Annotations.MUTEX_LOCK);
                  return n;
                });
    handle.fireNodeUpdate(locked, released);
    assertThat(waiting.allowedBy).containsExactly(NodeLockPlugin.NAME);
    assertThat(plugin.preBind(sb, b, "n1").isSuccess()).isTrue();
    for (StaleCause c : StaleCause.values()) {
      assertThat(plugin.brokenLocks(c)).as("locks broken for %s", c).isZero();
    }
  }

  @Test
  void servedHolderWhoseLockLingers_letsANewPodTakeTheNodeAfterTheGrace() {
    Pod a = pod("a");
    assertThat(bind(plugin, gpuState(), a).isSuccess()).isTrue();
    Node locked = client.nodes().withName("n1").get();
    handle.fireNodeUpdate(locked, locked);
    Pod served =
        new PodBuilder(a)
            .editMetadata()
            .addToAnnotations(Annotations.BIND_PHASE, "success")
            .endMetadata()
            .build();
    handle.firePodUpdate(a, served);
    Pod b = pod("b");
    CycleState sb = gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().code()).isEqualTo(Code.WAIT);
    plugin.unreserve(sb, b, "n1");

    ((FakeClock) handle.clock()).advance(NodeQueues.SERVED_LOCK_GRACE);
    CycleState again = gpuState();
    plugin.reserve(again, b, "n1");
    assertThat(plugin.permit(again, b, "n1").status().isSuccess()).isTrue();
  }

  @Test
  void waiterIsAllowedWhenTheHolderIsDeletedBeforeAllocate() {
    Pod a = pod("a");
    CycleState sa = gpuState();
    assertThat(bind(plugin, sa, a).isSuccess()).isTrue();
    Pod b = pod("b");
    CycleState sb = gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().code()).isEqualTo(Code.WAIT);
    RecordingWaitingPod waiting = new RecordingWaitingPod(b);
    handle.putWaitingPod("uid-b", waiting);

    handle.firePodDelete(a); // a was deleted; its lock will never be released by the node agent
    assertThat(waiting.allowedBy).containsExactly(NodeLockPlugin.NAME);
    assertThat(plugin.preBind(sb, b, "n1").isSuccess()).isTrue();
    assertThat(plugin.brokenLocks(StaleCause.HOLDER_GONE)).isEqualTo(1);
  }

  @Test
  void waiterDeletedAtPermit_isDroppedAndTheNextWaiterGetsTheNode() {
    Pod a = pod("a");
    assertThat(bind(plugin, gpuState(), a).isSuccess()).isTrue();
    Node locked = client.nodes().withName("n1").get();
    handle.fireNodeUpdate(locked, locked);
    Pod b = pod("b");
    Pod c = pod("c");
    CycleState sb = gpuState();
    CycleState sc = gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().code()).isEqualTo(Code.WAIT);
    plugin.reserve(sc, c, "n1");
    assertThat(plugin.permit(sc, c, "n1").status().code()).isEqualTo(Code.WAIT);
    RecordingWaitingPod waitingB = new RecordingWaitingPod(b);
    RecordingWaitingPod waitingC = new RecordingWaitingPod(c);
    handle.putWaitingPod("uid-b", waitingB);
    handle.putWaitingPod("uid-c", waitingC);

    // b is deleted while it waits (its unreserve has not run yet).
    handle.firePodDelete(b);
    Node released =
        client
            .nodes()
            .withName("n1")
            .edit(
                n -> {
                  n.getMetadata().getAnnotations().remove(Annotations.MUTEX_LOCK);
                  return n;
                });
    handle.fireNodeUpdate(locked, released);

    assertThat(waitingB.allowedBy).isEmpty();
    assertThat(waitingC.allowedBy).containsExactly(NodeLockPlugin.NAME);
    plugin.unreserve(sb, b, "n1"); // b's binding cycle ends: c keeps the node
    assertThat(plugin.preBind(sc, c, "n1").isSuccess()).isTrue();
    assertThat(lockValue()).endsWith(",default,c");
  }

  @Test
  void twoSchedulers_neverBothHoldTheLock() throws Exception {
    FakeHandle otherHandle = newHandle();
    NodeLockPlugin other =
        NodeLockPlugin.create(NodeLockArgs.DEFAULTS, otherHandle, new SharedGpuState());
    // Each holder exists and is being bound, so neither lock is stale for the other.
    client.pods().inNamespace("default").resource(pod("a")).createOr(NonDeletingOperation::update);
    client.pods().inNamespace("default").resource(pod("b")).createOr(NonDeletingOperation::update);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 10; round++) {
        Callable<Status> first = () -> bind(plugin, gpuState(), pod("a"));
        Callable<Status> second = () -> bind(other, gpuState(), pod("b"));
        Future<Status> f1 = pool.submit(first);
        Future<Status> f2 = pool.submit(second);
        Status s1 = f1.get();
        Status s2 = f2.get();
        assertThat(s1.isSuccess() ^ s2.isSuccess())
            .as("exactly one holds the lock in round %s", round)
            .isTrue();
        String holder = s1.isSuccess() ? "a" : "b";
        assertThat(lockValue()).endsWith(",default," + holder);
        client
            .nodes()
            .withName("n1")
            .edit(
                n -> {
                  n.getMetadata().getAnnotations().remove(Annotations.MUTEX_LOCK);
                  return n;
                });
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(plugin.contendedLocks() + other.contendedLocks()).isEqualTo(10);
  }

  /** A pod held at Permit by the plugins in {@link #pending} (a gang member: GangScheduling). */
  static final class HeldWaitingPod implements WaitingPod {
    final Pod pod;
    final Set<String> pending = new java.util.HashSet<>();

    HeldWaitingPod(Pod pod, String... plugins) {
      this.pod = pod;
      pending.addAll(List.of(plugins));
    }

    @Override
    public Pod pod() {
      return pod;
    }

    @Override
    public String nodeName() {
      return "n1";
    }

    @Override
    public Set<String> pendingPlugins() {
      return Set.copyOf(pending);
    }

    @Override
    public void allow(String pluginName) {
      pending.remove(pluginName);
    }

    @Override
    public void reject(String pluginName, String reason) {}
  }

  /** The node agent finished Allocate for the holder and removed the lock. */
  void agentReleases() {
    Node locked = client.nodes().withName("n1").get();
    handle.fireNodeUpdate(locked, locked);
    Node released =
        client
            .nodes()
            .withName("n1")
            .edit(
                n -> {
                  n.getMetadata().getAnnotations().remove(Annotations.MUTEX_LOCK);
                  return n;
                });
    handle.fireNodeUpdate(locked, released);
  }

  @Test
  void gangMemberWaitingForItsGroup_doesNotKeepOtherPodsOffTheNode() {
    Pod a = pod("a");
    CycleState sa = gpuState();
    assertThat(plugin.reserve(sa, a, "n1").isSuccess()).isTrue();
    assertThat(plugin.permit(sa, a, "n1").status().isSuccess()).isTrue();
    HeldWaitingPod heldA = new HeldWaitingPod(a, "GangScheduling");
    handle.putWaitingPod("uid-a", heldA);

    // b, without a group, is not queued behind a: it binds at once.
    Pod b = pod("b");
    CycleState sb = gpuState();
    assertThat(bind(plugin, sb, b).isSuccess()).isTrue();
    assertThat(lockValue()).endsWith(",default,b");

    // a's group completes after b was served: a takes the node back and locks it.
    agentReleases();
    heldA.allow("GangScheduling");
    assertThat(plugin.preBind(sa, a, "n1").isSuccess()).isTrue();
    assertThat(lockValue()).endsWith(",default,a");
  }

  @Test
  void twoMembersOfOneGangOnOneNode_doNotWaitForEachOther() throws Exception {
    Pod a = pod("a");
    Pod b = pod("b");
    CycleState sa = gpuState();
    CycleState sb = gpuState();
    assertThat(plugin.reserve(sa, a, "n1").isSuccess()).isTrue();
    assertThat(plugin.permit(sa, a, "n1").status().isSuccess()).isTrue();
    HeldWaitingPod heldA = new HeldWaitingPod(a, "GangScheduling");
    handle.putWaitingPod("uid-a", heldA);
    assertThat(plugin.reserve(sb, b, "n1").isSuccess()).isTrue();
    assertThat(plugin.permit(sb, b, "n1").status().isSuccess()).isTrue();

    // b completes the gang: both are allowed and bind, one after the other.
    heldA.allow("GangScheduling");
    assertThat(plugin.preBind(sb, b, "n1").isSuccess()).isTrue();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Status> boundA = pool.submit(() -> plugin.preBind(sa, a, "n1"));
      Thread.sleep(100);
      assertThat(boundA.isDone()).as("a waits while b holds the node").isFalse();
      agentReleases();
      assertThat(boundA.get(10, java.util.concurrent.TimeUnit.SECONDS).isSuccess()).isTrue();
      assertThat(lockValue()).endsWith(",default,a");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void yieldedGangMember_rejectedWithItsGroup_leavesNoTrace() {
    Pod a = pod("a");
    CycleState sa = gpuState();
    plugin.reserve(sa, a, "n1");
    plugin.permit(sa, a, "n1");
    handle.putWaitingPod("uid-a", new HeldWaitingPod(a, "GangScheduling"));
    Pod b = pod("b");
    CycleState sb = gpuState();
    plugin.reserve(sb, b, "n1");
    assertThat(plugin.permit(sb, b, "n1").status().isSuccess()).isTrue();
    // The gang is released: a is unreserved; b keeps the node.
    plugin.unreserve(sa, a, "n1");
    assertThat(plugin.preBind(sb, b, "n1").isSuccess()).isTrue();
    Pod c = pod("c");
    CycleState sc = gpuState();
    plugin.reserve(sc, c, "n1");
    assertThat(plugin.permit(sc, c, "n1").status().code()).isEqualTo(Code.WAIT);
  }
}
