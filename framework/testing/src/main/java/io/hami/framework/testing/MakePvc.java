package io.hami.framework.testing;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * A fluent PersistentVolumeClaim fixture: {@code
 * MakePvc.named("data").storageClass("local").request("10Gi").obj()}. Starts Pending, in namespace
 * {@code default}, ReadWriteOnce, with a UID derived from its name.
 */
public final class MakePvc {
  private final PersistentVolumeClaimBuilder builder;

  private MakePvc(String name) {
    builder =
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .withUid(
                UUID.nameUUIDFromBytes(("pvc/default/" + name).getBytes(StandardCharsets.UTF_8))
                    .toString())
            .withResourceVersion("1")
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .endSpec()
            .withNewStatus()
            .withPhase("Pending")
            .endStatus();
  }

  public static MakePvc named(String name) {
    return new MakePvc(name);
  }

  public MakePvc namespace(String ns) {
    builder.editMetadata().withNamespace(ns).endMetadata();
    return this;
  }

  public MakePvc storageClass(String name) {
    builder.editSpec().withStorageClassName(name).endSpec();
    return this;
  }

  /** Replaces the access modes ({@code ReadWriteOnce}, {@code ReadWriteOncePod}...). */
  public MakePvc accessModes(String... modes) {
    builder.editSpec().withAccessModes(modes).endSpec();
    return this;
  }

  public MakePvc request(String storage) {
    builder
        .editSpec()
        .editOrNewResources()
        .addToRequests("storage", new Quantity(storage))
        .endResources()
        .endSpec();
    return this;
  }

  public MakePvc volumeMode(String mode) {
    builder.editSpec().withVolumeMode(mode).endSpec();
    return this;
  }

  /** Requires PVs with this label ({@code spec.selector.matchLabels}). */
  public MakePvc selector(String key, String value) {
    builder
        .editSpec()
        .withSelector(new LabelSelectorBuilder().addToMatchLabels(key, value).build())
        .endSpec();
    return this;
  }

  /**
   * Binds the claim to {@code pvName} as the PV controller does: {@code spec.volumeName}, the
   * {@code pv.kubernetes.io/bind-completed} annotation and phase Bound.
   */
  public MakePvc boundTo(String pvName) {
    builder
        .editMetadata()
        .addToAnnotations("pv.kubernetes.io/bind-completed", "yes")
        .endMetadata()
        .editSpec()
        .withVolumeName(pvName)
        .endSpec()
        .editStatus()
        .withPhase("Bound")
        .endStatus();
    return this;
  }

  /** Pre-binds the claim to {@code pvName} ({@code spec.volumeName} only, still Pending). */
  public MakePvc volumeName(String pvName) {
    builder.editSpec().withVolumeName(pvName).endSpec();
    return this;
  }

  public MakePvc annotation(String key, String value) {
    builder.editMetadata().addToAnnotations(key, value).endMetadata();
    return this;
  }

  /** Marks the claim as being deleted. */
  public MakePvc deleting() {
    builder.editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata();
    return this;
  }

  /** Makes {@code pod} the claim's controller, as the ephemeral volume controller does. */
  public MakePvc ownedBy(Pod pod) {
    builder
        .editMetadata()
        .addToOwnerReferences(
            new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Pod")
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .withController(true)
                .build())
        .endMetadata();
    return this;
  }

  public PersistentVolumeClaim obj() {
    return builder.build();
  }
}
