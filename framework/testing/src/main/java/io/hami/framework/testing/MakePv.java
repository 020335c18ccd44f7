package io.hami.framework.testing;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;

/**
 * A fluent PersistentVolume fixture: {@code
 * MakePv.named("pv1").storageClass("local").capacity("10Gi").nodeAffinity("kubernetes.io/hostname",
 * "n1").obj()}. Starts Available and ReadWriteOnce.
 */
public final class MakePv {
  private final PersistentVolumeBuilder builder;

  private MakePv(String name) {
    builder =
        new PersistentVolumeBuilder()
            .withNewMetadata()
            .withName(name)
            .withResourceVersion("1")
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .withPersistentVolumeReclaimPolicy("Retain")
            .endSpec()
            .withNewStatus()
            .withPhase("Available")
            .endStatus();
  }

  public static MakePv named(String name) {
    return new MakePv(name);
  }

  public MakePv storageClass(String name) {
    builder.editSpec().withStorageClassName(name).endSpec();
    return this;
  }

  public MakePv capacity(String storage) {
    builder.editSpec().addToCapacity("storage", new Quantity(storage)).endSpec();
    return this;
  }

  public MakePv accessModes(String... modes) {
    builder.editSpec().withAccessModes(modes).endSpec();
    return this;
  }

  public MakePv volumeMode(String mode) {
    builder.editSpec().withVolumeMode(mode).endSpec();
    return this;
  }

  public MakePv label(String key, String value) {
    builder.editMetadata().addToLabels(key, value).endMetadata();
    return this;
  }

  public MakePv phase(String phase) {
    builder.editStatus().withPhase(phase).endStatus();
    return this;
  }

  /** Adds a required node-affinity term {@code key In values} (terms are ORed). */
  public MakePv nodeAffinity(String key, String... values) {
    builder
        .editSpec()
        .editOrNewNodeAffinity()
        .editOrNewRequired()
        .addToNodeSelectorTerms(
            new NodeSelectorTermBuilder()
                .withMatchExpressions(
                    new NodeSelectorRequirementBuilder()
                        .withKey(key)
                        .withOperator("In")
                        .withValues(List.of(values))
                        .build())
                .build())
        .endRequired()
        .endNodeAffinity()
        .endSpec();
    return this;
  }

  /** Makes it a CSI volume of {@code driver} with {@code handle}. */
  public MakePv csi(String driver, String handle) {
    builder.editSpec().withNewCsi().withDriver(driver).withVolumeHandle(handle).endCsi().endSpec();
    return this;
  }

  /** Sets {@code spec.claimRef} to {@code claim} (bound, or pre-bound while Available). */
  public MakePv claimRef(PersistentVolumeClaim claim) {
    builder
        .editSpec()
        .withClaimRef(
            new ObjectReferenceBuilder()
                .withKind("PersistentVolumeClaim")
                .withApiVersion("v1")
                .withNamespace(claim.getMetadata().getNamespace())
                .withName(claim.getMetadata().getName())
                .withUid(claim.getMetadata().getUid())
                .build())
        .endSpec();
    return this;
  }

  /** Bound to {@code claim}: its claimRef and phase Bound. */
  public MakePv boundTo(PersistentVolumeClaim claim) {
    return claimRef(claim).phase("Bound");
  }

  public MakePv deleting() {
    builder.editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata();
    return this;
  }

  public PersistentVolume obj() {
    return builder.build();
  }
}
