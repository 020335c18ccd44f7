package io.hami.framework.local;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What kube-controller-manager's PV controller and an external provisioner do after the scheduler's
 * volume binder writes, played by the in-memory cluster: a PV whose {@code spec.claimRef} names an
 * unbound claim becomes Bound together with the claim; a claim with the {@code
 * volume.kubernetes.io/selected-node} annotation whose StorageClass has a provisioner gets a new PV
 * {@code pvc-<uid>} of its size, bound to it. Stateless: {@link #reconcile} reads the store and
 * returns the new versions to write.
 */
final class VolumeControllerEmulation {
  static final String ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node";
  static final String ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed";
  static final String ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";
  static final String ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
  static final String NO_PROVISIONER = "kubernetes.io/no-provisioner";

  private VolumeControllerEmulation() {}

  /** The objects to write so that every claim the scheduler bound or provisioned is Bound. */
  static List<HasMetadata> reconcile(Collection<HasMetadata> store) {
    Map<String, PersistentVolumeClaim> claims = new HashMap<>();
    Map<String, StorageClass> classes = new HashMap<>();
    List<PersistentVolume> pvs = new ArrayList<>();
    for (HasMetadata o : store) {
      if (o instanceof PersistentVolumeClaim c) {
        claims.put(c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(), c);
      } else if (o instanceof PersistentVolume pv) {
        pvs.add(pv);
      } else if (o instanceof StorageClass sc) {
        classes.put(sc.getMetadata().getName(), sc);
      }
    }
    List<HasMetadata> out = new ArrayList<>();
    for (PersistentVolume pv : pvs) {
      ObjectReference ref = pv.getSpec() == null ? null : pv.getSpec().getClaimRef();
      if (ref == null || isBound(pv)) {
        continue;
      }
      PersistentVolumeClaim claim = claims.get(ref.getNamespace() + "/" + ref.getName());
      if (claim == null || !claimMayTake(claim, pv.getMetadata().getName())) {
        continue;
      }
      out.add(boundVolume(pv));
      out.add(boundClaim(claim, pv));
      claims.remove(ref.getNamespace() + "/" + ref.getName());
    }
    for (PersistentVolumeClaim claim : claims.values()) {
      Map<String, String> ann = claim.getMetadata().getAnnotations();
      if (ann == null || !ann.containsKey(ANN_SELECTED_NODE) || hasVolume(claim)) {
        continue;
      }
      StorageClass sc = classes.get(className(claim));
      String provisioner = sc == null ? null : sc.getProvisioner();
      if (provisioner == null || provisioner.isEmpty() || NO_PROVISIONER.equals(provisioner)) {
        continue;
      }
      PersistentVolume pv = provisioned(claim, provisioner);
      out.add(pv);
      out.add(boundClaim(claim, pv));
    }
    return out;
  }

  private static boolean isBound(PersistentVolume pv) {
    return pv.getStatus() != null && "Bound".equals(pv.getStatus().getPhase());
  }

  private static boolean hasVolume(PersistentVolumeClaim c) {
    return c.getSpec() != null
        && c.getSpec().getVolumeName() != null
        && !c.getSpec().getVolumeName().isEmpty();
  }

  private static boolean claimMayTake(PersistentVolumeClaim c, String pvName) {
    return !hasVolume(c) || pvName.equals(c.getSpec().getVolumeName());
  }

  private static @Nullable String className(PersistentVolumeClaim c) {
    return c.getSpec() == null ? null : c.getSpec().getStorageClassName();
  }

  private static PersistentVolume boundVolume(PersistentVolume pv) {
    return new PersistentVolumeBuilder(pv)
        .editOrNewMetadata()
        .withResourceVersion(null)
        .endMetadata()
        .editOrNewStatus()
        .withPhase("Bound")
        .endStatus()
        .build();
  }

  private static PersistentVolumeClaim boundClaim(PersistentVolumeClaim c, PersistentVolume pv) {
    Map<String, Quantity> capacity = pv.getSpec().getCapacity();
    return new PersistentVolumeClaimBuilder(c)
        .editOrNewMetadata()
        .withResourceVersion(null)
        .addToAnnotations(ANN_BIND_COMPLETED, "yes")
        .endMetadata()
        .editOrNewSpec()
        .withVolumeName(pv.getMetadata().getName())
        .endSpec()
        .editOrNewStatus()
        .withPhase("Bound")
        .withCapacity(capacity == null ? null : new HashMap<>(capacity))
        .withAccessModes(pv.getSpec().getAccessModes())
        .endStatus()
        .build();
  }

  private static PersistentVolume provisioned(PersistentVolumeClaim c, String provisioner) {
    Quantity size = null;
    if (c.getSpec().getResources() != null && c.getSpec().getResources().getRequests() != null) {
      size = c.getSpec().getResources().getRequests().get("storage");
    }
    String name = "pvc-" + Objects.requireNonNullElse(c.getMetadata().getUid(), "0");
    return new PersistentVolumeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToAnnotations(ANN_PROVISIONED_BY, provisioner)
        .endMetadata()
        .withNewSpec()
        .withStorageClassName(className(c))
        .withAccessModes(c.getSpec().getAccessModes())
        .withVolumeMode(c.getSpec().getVolumeMode())
        .withCapacity(size == null ? null : Map.of("storage", size))
        .withClaimRef(
            new ObjectReferenceBuilder()
                .withKind("PersistentVolumeClaim")
                .withApiVersion("v1")
                .withNamespace(c.getMetadata().getNamespace())
                .withName(c.getMetadata().getName())
                .withUid(c.getMetadata().getUid())
                .build())
        .withPersistentVolumeReclaimPolicy("Delete")
        .endSpec()
        .withNewStatus()
        .withPhase("Bound")
        .endStatus()
        .build();
  }
}
