package io.hami.framework.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.plugins.volumebinding.VolumeBindingPlugin;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.MakePv;
import io.hami.framework.testing.MakePvc;
import io.hami.framework.testing.MakeStorage;
import org.junit.jupiter.api.Test;

/** The volume plugins end to end on an in-memory cluster that plays the PV controller. */
class VolumeBindingInMemoryTest {
  private static final String HOST = "kubernetes.io/hostname";

  private static InMemoryCluster cluster() {
    InMemoryCluster c = InMemoryCluster.builder(BuiltInPlugins.registry()).build();
    for (String n : new String[] {"n1", "n2", "n3"}) {
      c.addNode(MakeNode.named(n).capacity("4", "8Gi", 110).label(HOST, n).obj());
    }
    c.putObject(
        MakeStorage.storageClass(
            "local", MakeStorage.NO_PROVISIONER, MakeStorage.WAIT_FOR_FIRST_CONSUMER));
    return c;
  }

  private static PersistentVolumeClaim claim(String name) {
    return MakePvc.named(name).storageClass("local").request("10Gi").obj();
  }

  private static PersistentVolume localPv(String name, String node) {
    return MakePv.named(name).storageClass("local").capacity("10Gi").nodeAffinity(HOST, node).obj();
  }

  @Test
  void waitForFirstConsumerClaim_landsOnTheNodeOfItsLocalVolume_andIsBound() {
    try (InMemoryCluster c = cluster()) {
      c.putObject(claim("data"));
      c.putObject(localPv("pv-n2", "n2"));
      c.addPod(MakePod.named("p").cpu("100m").pvc("data", "data").obj());
      c.drain();

      assertThat(c.outcome("default", "p").orElseThrow().node()).isEqualTo("n2");
      PersistentVolumeClaim pvc =
          c.object(ObjectKind.PERSISTENT_VOLUME_CLAIM, "default", "data").orElseThrow();
      assertThat(pvc.getSpec().getVolumeName()).isEqualTo("pv-n2");
      assertThat(pvc.getStatus().getPhase()).isEqualTo("Bound");
      PersistentVolume pv = c.object(ObjectKind.PERSISTENT_VOLUME, null, "pv-n2").orElseThrow();
      assertThat(pv.getStatus().getPhase()).isEqualTo("Bound");
      assertThat(pv.getSpec().getClaimRef().getName()).isEqualTo("data");
      assertThat(pv.getMetadata().getAnnotations())
          .containsEntry("pv.kubernetes.io/bound-by-controller", "yes");
    }
  }

  @Test
  void twoPods_doNotTakeTheSameVolume() {
    try (InMemoryCluster c = cluster()) {
      c.putObject(claim("a"));
      c.putObject(claim("b"));
      c.putObject(localPv("pv-n1", "n1"));
      c.putObject(localPv("pv-n3", "n3"));
      c.addPod(MakePod.named("pa").cpu("100m").pvc("d", "a").obj());
      c.addPod(MakePod.named("pb").cpu("100m").pvc("d", "b").obj());
      c.drain();

      assertThat(c.outcome("default", "pa").orElseThrow().node()).isIn("n1", "n3");
      assertThat(c.outcome("default", "pb").orElseThrow().node())
          .isIn("n1", "n3")
          .isNotEqualTo(c.outcome("default", "pa").orElseThrow().node());
      String va =
          c.object(ObjectKind.PERSISTENT_VOLUME_CLAIM, "default", "a")
              .orElseThrow()
              .getSpec()
              .getVolumeName();
      String vb =
          c.object(ObjectKind.PERSISTENT_VOLUME_CLAIM, "default", "b")
              .orElseThrow()
              .getSpec()
              .getVolumeName();
      assertThat(va).isNotEqualTo(vb);
    }
  }

  @Test
  void podWaitingForAVolume_isRetriedWhenOneAppears() {
    try (InMemoryCluster c = cluster()) {
      c.putObject(claim("data"));
      c.addPod(MakePod.named("p").cpu("100m").pvc("data", "data").obj());
      c.drain();
      PodOutcome waiting = c.outcome("default", "p").orElseThrow();
      assertThat(waiting.isBound()).isFalse();
      assertThat(waiting.message()).contains(VolumeBindingPlugin.REASON_BIND_CONFLICT);

      c.putObject(localPv("pv-n3", "n3"));
      c.drain();
      assertThat(c.outcome("default", "p").orElseThrow().node()).isEqualTo("n3");
    }
  }

  @Test
  void podWaitingForItsClaim_isRetriedWhenItIsCreated() {
    try (InMemoryCluster c = cluster()) {
      c.putObject(localPv("pv-n1", "n1"));
      c.addPod(MakePod.named("p").cpu("100m").pvc("data", "data").obj());
      c.drain();
      assertThat(c.outcome("default", "p").orElseThrow().message())
          .contains("persistentvolumeclaim \"data\" not found");

      c.putObject(claim("data"));
      c.drain();
      assertThat(c.outcome("default", "p").orElseThrow().node()).isEqualTo("n1");
    }
  }

  @Test
  void dynamicProvisioning_selectsTheNode_andTheProvisionerBindsANewVolume() {
    try (InMemoryCluster c = cluster()) {
      c.putObject(
          MakeStorage.storageClass(
              "csi", "ebs.csi.aws.com", MakeStorage.WAIT_FOR_FIRST_CONSUMER, HOST, "n1"));
      c.putObject(MakePvc.named("data").storageClass("csi").request("5Gi").obj());
      c.addPod(MakePod.named("p").cpu("100m").pvc("data", "data").obj());
      c.drain();

      assertThat(c.outcome("default", "p").orElseThrow().node()).isEqualTo("n1");
      PersistentVolumeClaim pvc =
          c.object(ObjectKind.PERSISTENT_VOLUME_CLAIM, "default", "data").orElseThrow();
      assertThat(pvc.getMetadata().getAnnotations())
          .containsEntry("volume.kubernetes.io/selected-node", "n1");
      assertThat(pvc.getStatus().getPhase()).isEqualTo("Bound");
      assertThat(c.object(ObjectKind.PERSISTENT_VOLUME, null, pvc.getSpec().getVolumeName()))
          .isPresent();
    }
  }
}
