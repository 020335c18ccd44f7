package io.hami.framework.plugins.helper;

import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.hami.framework.plugins.nodeaffinity.RequiredNodeAffinity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reading pods' volumes, claims, volumes and classes the way kube's volume helpers do: shared by
 * VolumeBinding, VolumeRestrictions, VolumeZone and NodeVolumeLimits. Tolerates missing fields.
 */
public final class Volumes {
  /** The node the scheduler chose for a claim to be provisioned on. */
  public static final String ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node";

  /** Set by the PV controller once a claim's binding is complete. */
  public static final String ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed";

  /** Set on a PV whose claimRef the controller (or the scheduler) filled in. */
  public static final String ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";

  /** The legacy storage class annotation of claims and volumes. */
  public static final String ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class";

  /** The provisioner of classes for statically provisioned volumes only. */
  public static final String NO_PROVISIONER = "kubernetes.io/no-provisioner";

  public static final String WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer";

  private Volumes() {}

  /**
   * The claim behind a pod volume: {@code persistentVolumeClaim.claimName}, {@code <pod>-<volume>}
   * for a generic ephemeral volume, or null for other volumes.
   */
  public static @Nullable String claimName(Pod pod, Volume v) {
    if (v.getPersistentVolumeClaim() != null) {
      return v.getPersistentVolumeClaim().getClaimName();
    }
    if (v.getEphemeral() != null) {
      return pod.getMetadata().getName() + "-" + v.getName();
    }
    return null;
  }

  /** The pod's volumes; empty when it has none. */
  public static List<Volume> of(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getVolumes() == null) {
      return List.of();
    }
    return pod.getSpec().getVolumes();
  }

  /** Whether {@code pod} has a volume backed by a claim (persistent or generic ephemeral). */
  public static boolean hasClaims(Pod pod) {
    for (Volume v : of(pod)) {
      if (claimName(pod, v) != null) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code claim} is controlled by {@code pod} (as the ephemeral controller makes it). */
  public static boolean ownedBy(PersistentVolumeClaim claim, Pod pod) {
    List<OwnerReference> refs = claim.getMetadata().getOwnerReferences();
    if (refs == null) {
      return false;
    }
    for (OwnerReference r : refs) {
      if (Boolean.TRUE.equals(r.getController())
          && r.getUid() != null
          && r.getUid().equals(pod.getMetadata().getUid())) {
        return true;
      }
    }
    return false;
  }

  /** The claim's class: {@code spec.storageClassName}, else the beta annotation, else "". */
  public static String className(PersistentVolumeClaim claim) {
    Map<String, String> ann = claim.getMetadata().getAnnotations();
    if (ann != null && ann.containsKey(ANN_BETA_STORAGE_CLASS)) {
      return ann.get(ANN_BETA_STORAGE_CLASS);
    }
    String name = claim.getSpec() == null ? null : claim.getSpec().getStorageClassName();
    return name == null ? "" : name;
  }

  /** The volume's class: {@code spec.storageClassName}, else the beta annotation, else "". */
  public static String className(PersistentVolume pv) {
    Map<String, String> ann = pv.getMetadata().getAnnotations();
    if (ann != null && ann.containsKey(ANN_BETA_STORAGE_CLASS)) {
      return ann.get(ANN_BETA_STORAGE_CLASS);
    }
    String name = pv.getSpec() == null ? null : pv.getSpec().getStorageClassName();
    return name == null ? "" : name;
  }

  /** Whether the class delays binding until a pod is scheduled. */
  public static boolean waitsForFirstConsumer(@Nullable StorageClass sc) {
    return sc != null && WAIT_FOR_FIRST_CONSUMER.equals(sc.getVolumeBindingMode());
  }

  /** The claim's {@code spec.volumeName}, or "" when it names no volume. */
  public static String volumeName(PersistentVolumeClaim claim) {
    String name = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
    return name == null ? "" : name;
  }

  /** Whether the claim is being deleted. */
  public static boolean deleting(PersistentVolumeClaim claim) {
    return claim.getMetadata().getDeletionTimestamp() != null;
  }

  /** Whether {@code claim} asks for the ReadWriteOncePod access mode. */
  public static boolean readWriteOncePod(PersistentVolumeClaim claim) {
    return claim.getSpec() != null
        && claim.getSpec().getAccessModes() != null
        && claim.getSpec().getAccessModes().contains("ReadWriteOncePod");
  }

  /** The claim's storage request in bytes; 0 when it has none. */
  public static BigDecimal requestedBytes(PersistentVolumeClaim claim) {
    if (claim.getSpec() == null
        || claim.getSpec().getResources() == null
        || claim.getSpec().getResources().getRequests() == null) {
      return BigDecimal.ZERO;
    }
    return bytes(claim.getSpec().getResources().getRequests().get("storage"));
  }

  /** The volume's storage capacity in bytes; 0 when it has none. */
  public static BigDecimal capacityBytes(PersistentVolume pv) {
    if (pv.getSpec() == null || pv.getSpec().getCapacity() == null) {
      return BigDecimal.ZERO;
    }
    return bytes(pv.getSpec().getCapacity().get("storage"));
  }

  /**
   * @throws IllegalArgumentException if the quantity is malformed
   */
  private static BigDecimal bytes(@Nullable Quantity q) {
    return q == null ? BigDecimal.ZERO : q.getNumericalAmount();
  }

  /**
   * Whether the volume's required node affinity admits a node with this name and these labels; a
   * volume without one fits every node.
   */
  public static boolean nodeAffinityMatches(
      PersistentVolume pv, String nodeName, Map<String, String> labels) {
    if (pv.getSpec() == null
        || pv.getSpec().getNodeAffinity() == null
        || pv.getSpec().getNodeAffinity().getRequired() == null) {
      return true;
    }
    List<NodeSelectorTerm> terms =
        pv.getSpec().getNodeAffinity().getRequired().getNodeSelectorTerms();
    return terms != null && RequiredNodeAffinity.anyTermMatches(terms, nodeName, labels);
  }
}
