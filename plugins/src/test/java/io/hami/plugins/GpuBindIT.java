package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.bind.ApiRequestObserver;
import io.hami.framework.bind.Binder;
import io.hami.framework.plugins.defaultbinder.DefaultBinderPlugin;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.PluginHarness;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.testing.BindingCrudDispatcher;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import io.hami.plugins.nodelock.NodeLockArgs;
import io.hami.plugins.nodelock.NodeLockPlugin;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.VgpuArgs;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The full bind path of a GPU pod (PreBind and Bind) against fabric8's CRUD mock server, which
 * applies each Binding within its request as the API server does ({@link BindingCrudDispatcher}).
 */
final class GpuBindIT {

  private static final Instant NOW = Instant.parse("2026-08-21T08:20:39Z");

  private final BindingCrudDispatcher.Served api = BindingCrudDispatcher.serve();
  private final KubernetesMockServer server = api.server();
  private final KubernetesClient client = api.client();

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void gpuPod_isLockedThenBoundWithAllAnnotationsAndLabelInTheBinding() throws Exception {
    server.setVersionInfo(version("36"));
    Fixture f = setUp();

    int before = server.getRequestCount();
    assertThat(f.lock.preBind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(f.vgpu.preBind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(f.binder.bind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(writesSince(before)).as("lock patch and binding").containsExactly("PATCH", "POST");
    Pod bound = boundPod();

    Node locked = client.nodes().withName("n1").get();
    NodeLock l =
        NodeLock.decode(locked.getMetadata().getAnnotations().get(Annotations.MUTEX_LOCK))
            .orElseThrow();
    assertThat(l.namespace() + "/" + l.name()).isEqualTo("default/p");

    assertThat(bound.getSpec().getNodeName()).isEqualTo("n1");
    assertThat(bound.getMetadata().getLabels()).containsEntry(Annotations.VGPU_NODE, "n1");
    assertPlacementAnnotations(bound);

    // The informer delivers the bound pod: the reservation is confirmed, not counted twice.
    f.handle.firePodUpdate(f.pod, bound);
    assertThat(f.vgpu.index().node("n1").devices().stream().mapToInt(d -> d.usedMemMiB()).sum())
        .isEqualTo(3000);
  }

  @Test
  void lockModeScheduler_onANodeWhoseAgentNeedsNoLock_bindsWithTheBindingAlone() throws Exception {
    server.setVersionInfo(version("36"));
    Fixture f = setUp(NodeLockArgs.withMode(NodeLockArgs.MODE_SCHEDULER), true);

    int before = server.getRequestCount();
    assertThat(f.lock.preBind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(f.vgpu.preBind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(f.binder.bind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(writesSince(before)).as("the binding alone").containsExactly("POST");
    Pod bound = boundPod();
    assertThat(client.nodes().withName("n1").get().getMetadata().getAnnotations())
        .doesNotContainKey(Annotations.MUTEX_LOCK);
    assertThat(bound.getMetadata().getLabels()).containsEntry(Annotations.VGPU_NODE, "n1");
    assertPlacementAnnotations(bound);
  }

  @Test
  void olderApiServer_getsTheLabelInAPatchOfItsOwn() throws Exception {
    server.setVersionInfo(version("34+"));
    Fixture f = setUp();

    int before = server.getRequestCount();
    assertThat(f.lock.preBind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(f.vgpu.preBind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(f.binder.bind(f.state, f.pod, "n1").isSuccess()).isTrue();
    assertThat(writesSince(before))
        .as("lock patch, label patch and binding")
        .containsExactly("PATCH", "PATCH", "POST");
    Pod bound = boundPod();
    assertThat(api.recorder().bound().get(0).getMetadata().getLabels()).isNullOrEmpty();
    assertThat(bound.getMetadata().getLabels()).containsEntry(Annotations.VGPU_NODE, "n1");
    assertPlacementAnnotations(bound);
  }

  private record Fixture(
      FakeHandle handle,
      VgpuPlugin vgpu,
      NodeLockPlugin lock,
      DefaultBinderPlugin binder,
      Pod pod,
      CycleState state) {}

  private Fixture setUp() {
    return setUp(NodeLockArgs.DEFAULTS, false);
  }

  /**
   * @param lockFreeAgent whether the node says its agent finds the pod without the node lock
   */
  private Fixture setUp(NodeLockArgs lockArgs, boolean lockFreeAgent) {
    Node gpuNode = MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj();
    if (lockFreeAgent) {
      gpuNode.getMetadata().getAnnotations().put(Annotations.NODE_LOCK_FREE, "true");
    }
    Node node = client.nodes().resource(gpuNode).createOr(NonDeletingOperation::update);
    FakeHandle handle = new FakeHandle("hami-scheduler", new FakeClock(NOW)).withClient(client);
    SharedGpuState shared = new SharedGpuState();
    VgpuPlugin vgpu = VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, shared);
    NodeLockPlugin lock = NodeLockPlugin.create(lockArgs, handle, shared);
    DefaultBinderPlugin binder =
        new DefaultBinderPlugin(Binder.apiBinder(client, ApiRequestObserver.none()));

    handle.fireNodeAdd(node);
    Pod pod =
        client
            .pods()
            .inNamespace("default")
            .resource(
                MakeGpuPod.named("p")
                    .namespace("default")
                    .initContainer("setup")
                    .container("main")
                    .gpus(1)
                    .gpuMemMiB(3000)
                    .gpuCores(30)
                    .obj())
            .createOr(NonDeletingOperation::update);

    PluginHarness.Result r =
        PluginHarness.create().plugin(lock).plugin(vgpu).nodes(NodeInfo.of(node)).run(pod);
    assertThat(r.selected()).isEqualTo("n1");
    assertThat(lock.reserve(r.state(), pod, "n1").isSuccess()).isTrue();
    assertThat(vgpu.reserve(r.state(), pod, "n1").isSuccess()).isTrue();
    assertThat(lock.permit(r.state(), pod, "n1").status().isSuccess()).isTrue();
    r.state().write(NodeSelection.KEY, new NodeSelection(1, 1, null, List.of()));
    return new Fixture(handle, vgpu, lock, binder, pod, r.state());
  }

  /** What the mock server answers on {@code /version}. */
  private static VersionInfo version(String minor) {
    return new VersionInfo.Builder().withMajor("1").withMinor(minor).build();
  }

  /** The methods of the writes the mock server received since request {@code before}. */
  private List<String> writesSince(int before) throws InterruptedException {
    for (int i = 0; i < before; i++) {
      server.takeRequest(); // setup requests
    }
    List<String> writes = new ArrayList<>();
    for (int i = before; i < server.getRequestCount(); i++) {
      String method = server.takeRequest().getMethod();
      if (!method.equals("GET")) {
        writes.add(method);
      }
    }
    return writes;
  }

  /** The pod after the one Binding the server applied. */
  private Pod boundPod() {
    assertThat(api.recorder().told()).as("the posted Binding").containsExactly("bound p");
    return client.pods().inNamespace("default").withName("p").get();
  }

  private static void assertPlacementAnnotations(Pod bound) throws Exception {
    Map<String, String> annos = bound.getMetadata().getAnnotations();
    String seconds = Long.toString(NOW.getEpochSecond());
    assertThat(annos)
        .containsEntry(Annotations.VGPU_NODE, "n1")
        .containsEntry(Annotations.VGPU_TIME, seconds)
        .containsEntry(Annotations.BIND_PHASE, "allocating")
        .containsEntry(Annotations.BIND_TIME, seconds);
    assertThat(ScheduleRecordCodec.decode(annos.get(Annotations.SCHEDULE_EXPLAIN)).orElseThrow())
        .isEqualTo(
            new ScheduleRecord.Scheduled(NOW, "n1", null, "binpack", "spread", 1, 1, List.of()));
    String allocated = annos.get(Annotations.VGPU_DEVICES_ALLOCATED);
    assertThat(annos.get(Annotations.VGPU_DEVICES_TO_ALLOCATE)).isEqualTo(allocated);
    PodDevices devices = PodDevicesCodec.decode(allocated).orElseThrow();
    // Init container first (no device), then the app container, then the trailing empty entry.
    assertThat(devices.container(0)).isEmpty();
    assertThat(devices.container(1)).hasSize(1);
    assertThat(devices.container(1).get(0).usedmem()).isEqualTo(3000);
    assertThat(devices.container(1).get(0).usedcores()).isEqualTo(30);
    assertThat(devices.container(1).get(0).type()).isEqualTo("NVIDIA");
  }
}
