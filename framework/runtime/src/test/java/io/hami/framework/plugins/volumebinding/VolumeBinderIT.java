package io.hami.framework.plugins.volumebinding;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.bind.ObjectWriter;
import io.hami.framework.plugins.helper.Volumes;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.MakePv;
import io.hami.framework.testing.MakePvc;
import io.hami.framework.testing.MakeStorage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * PreBind against fabric8's CRUD mock server: the PV's claimRef reaches the API, then PreBind waits
 * until the claim shows Bound (the test plays the PV controller by feeding the bound claim to the
 * lister), or times out naming the claim.
 */
@EnableKubernetesMockClient(crud = true)
class VolumeBinderIT {
  private static final String HOST = "kubernetes.io/hostname";

  KubernetesClient client;

  private final Pod pod = MakePod.named("p").pvc("data", "data").obj();
  private final NodeInfo node = NodeInfo.of(MakeNode.named("n1").label(HOST, "n1").obj());

  private PersistentVolumeClaim claim() {
    return MakePvc.named("data").storageClass("local").request("1Gi").obj();
  }

  private PersistentVolume pv() {
    return MakePv.named("pv1").storageClass("local").capacity("1Gi").nodeAffinity(HOST, "n1").obj();
  }

  /** Seeds the server and the handle's listers alike, each with the server's resourceVersion. */
  private FakeHandle handle() {
    PersistentVolumeClaim c = claim();
    c.getMetadata().setResourceVersion(null);
    PersistentVolume v = pv();
    v.getMetadata().setResourceVersion(null);
    return new FakeHandle()
        .withClient(client)
        .withObjects(
            client.resource(c).create(),
            client.resource(v).create(),
            MakeStorage.storageClass(
                "local", MakeStorage.NO_PROVISIONER, MakeStorage.WAIT_FOR_FIRST_CONSUMER));
  }

  private CycleState reserved(VolumeBindingPlugin plugin) {
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, pod, Snapshot.of(List.of(node))).status().isSuccess())
        .isTrue();
    assertThat(plugin.filter(state, pod, node).isSuccess()).isTrue();
    assertThat(plugin.reserve(state, pod, "n1").isSuccess()).isTrue();
    return state;
  }

  @Test
  void preBind_writesTheClaimRef_thenWaitsForTheClaimToBeBound() throws Exception {
    FakeHandle handle = handle();
    VolumeBindingPlugin plugin =
        new VolumeBindingPlugin(new VolumeBindingArgs(60), handle, Duration.ofMillis(10));
    CycleState state = reserved(plugin);

    CompletableFuture<Status> bound =
        CompletableFuture.supplyAsync(() -> plugin.preBind(state, pod, "n1"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    PersistentVolume written = null;
    while (System.nanoTime() < deadline) {
      written = client.persistentVolumes().withName("pv1").get();
      if (written.getSpec().getClaimRef() != null) {
        break;
      }
      Thread.sleep(10);
    }
    assertThat(written.getSpec().getClaimRef().getName()).isEqualTo("data");
    assertThat(written.getMetadata().getAnnotations())
        .containsEntry(Volumes.ANN_BOUND_BY_CONTROLLER, "yes");
    assertThat(bound).isNotDone();

    // The PV controller binds the claim; the informer delivers it.
    handle.withObjects(MakePvc.named("data").storageClass("local").boundTo("pv1").obj());
    assertThat(bound.get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
  }

  @Test
  void preBind_timesOut_namingTheClaims() {
    VolumeBindingPlugin plugin =
        new VolumeBindingPlugin(new VolumeBindingArgs(0), handle(), Duration.ofMillis(10));
    Status s = plugin.preBind(reserved(plugin), pod, "n1");
    assertThat(s.code()).isEqualTo(Code.ERROR);
    assertThat(s.message())
        .isEqualTo(
            "binding volumes: timed out after 0s waiting for PersistentVolumeClaims default/data"
                + " to be bound");
  }

  @Test
  void apiWriter_refusesAStaleVersion() {
    PersistentVolume v = pv();
    v.getMetadata().setResourceVersion(null);
    PersistentVolume created = client.resource(v).create();
    ObjectWriter writer = ObjectWriter.api(client);
    assertThat(writer.update(VolumeBinder.withClaimRef(created, claim())).isSuccess()).isTrue();
    // The same write again is the retry of one whose answer was lost: the PV holds it already.
    assertThat(writer.update(VolumeBinder.withClaimRef(created, claim())).isSuccess()).isTrue();
    PersistentVolumeClaim other = MakePvc.named("other").storageClass("local").request("1Gi").obj();
    Status stale = writer.update(VolumeBinder.withClaimRef(created, other));
    assertThat(stale.code()).isEqualTo(Code.ERROR);
    assertThat(stale.message()).startsWith("updating PersistentVolume pv1 failed:");
  }
}
