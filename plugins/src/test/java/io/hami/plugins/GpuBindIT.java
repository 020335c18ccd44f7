package io.hami.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeSelection;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.PluginHarness;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import io.hami.model.testing.MakeGpuPod;
import io.hami.plugins.nodelock.NodeLockArgs;
import io.hami.plugins.nodelock.NodeLockPlugin;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.VgpuArgs;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The full bind path of a GPU pod against fabric8's CRUD mock server. */
@EnableKubernetesMockClient(crud = true)
final class GpuBindIT {

  KubernetesClient client;
  KubernetesMockServer server;

  @Test
  void gpuPod_getsLockThenAllAnnotationsAndLabelInOnePatch() throws Exception {
    Instant now = Instant.parse("2026-08-21T08:20:39Z");
    FakeHandle handle = new FakeHandle("hami-scheduler", new FakeClock(now)).withClient(client);
    SharedGpuState shared = new SharedGpuState();
    VgpuPlugin vgpu = VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, shared);
    NodeLockPlugin lock = NodeLockPlugin.create(NodeLockArgs.DEFAULTS, handle, shared);

    Node node =
        client
            .nodes()
            .resource(MakeGpuNode.named("n1").gpus(FakeGpus.t4s("n1", 2)).obj())
            .createOr(NonDeletingOperation::update);
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

    int before = server.getRequestCount();
    assertThat(lock.preBind(r.state(), pod, "n1").isSuccess()).isTrue();
    assertThat(vgpu.preBind(r.state(), pod, "n1").isSuccess()).isTrue();
    for (int i = 0; i < before; i++) {
      server.takeRequest(); // setup requests
    }
    int writes = 0;
    for (int i = before; i < server.getRequestCount(); i++) {
      String method = server.takeRequest().getMethod();
      if (!method.equals("GET")) {
        writes++;
      }
    }
    assertThat(writes).as("lock patch and one pod patch").isEqualTo(2);

    Node locked = client.nodes().withName("n1").get();
    NodeLock l =
        NodeLock.decode(locked.getMetadata().getAnnotations().get(Annotations.MUTEX_LOCK))
            .orElseThrow();
    assertThat(l.namespace() + "/" + l.name()).isEqualTo("default/p");

    Pod patched = client.pods().inNamespace("default").withName("p").get();
    Map<String, String> annos = patched.getMetadata().getAnnotations();
    String seconds = Long.toString(now.getEpochSecond());
    assertThat(annos)
        .containsEntry(Annotations.VGPU_NODE, "n1")
        .containsEntry(Annotations.VGPU_TIME, seconds)
        .containsEntry(Annotations.BIND_PHASE, "allocating")
        .containsEntry(Annotations.BIND_TIME, seconds);
    assertThat(patched.getMetadata().getLabels()).containsEntry(Annotations.VGPU_NODE, "n1");
    assertThat(ScheduleRecordCodec.decode(annos.get(Annotations.SCHEDULE_EXPLAIN)).orElseThrow())
        .isEqualTo(
            new ScheduleRecord.Scheduled(now, "n1", null, "binpack", "spread", 1, 1, List.of()));
    String allocated = annos.get(Annotations.VGPU_DEVICES_ALLOCATED);
    assertThat(annos.get(Annotations.VGPU_DEVICES_TO_ALLOCATE)).isEqualTo(allocated);
    PodDevices devices = PodDevicesCodec.decode(allocated).orElseThrow();
    // Init container first (no device), then the app container, then the trailing empty entry.
    assertThat(devices.container(0)).isEmpty();
    assertThat(devices.container(1)).hasSize(1);
    assertThat(devices.container(1).get(0).usedmem()).isEqualTo(3000);
    assertThat(devices.container(1).get(0).usedcores()).isEqualTo(30);
    assertThat(devices.container(1).get(0).type()).isEqualTo("NVIDIA");

    // The informer delivers the annotated pod: the reservation is confirmed, not counted twice.
    handle.firePodUpdate(pod, patched);
    assertThat(vgpu.index().node("n1").devices().stream().mapToInt(d -> d.usedMemMiB()).sum())
        .isEqualTo(3000);
  }
}
