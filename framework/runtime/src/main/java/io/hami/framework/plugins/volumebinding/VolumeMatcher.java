package io.hami.framework.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.hami.framework.plugins.helper.LabelSelectors;
import io.hami.framework.plugins.helper.Volumes;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Finds the PV an unbound delayed claim can bind to on a node, as kube's {@code
 * FindMatchingVolume}: a PV already promised to the claim if its node affinity admits the node;
 * otherwise the smallest Available PV of the claim's class, large enough, with the claim's access
 * modes and volume mode, matching the claim's selector and admitting the node. A PV with a
 * malformed capacity is skipped.
 */
final class VolumeMatcher {
  private VolumeMatcher() {}

  /**
   * Returns the PV for {@code claim} on the node, or null.
   *
   * @param pvs the PVs of the claim's class
   * @param excluded PVs already chosen for other claims of the pod
   * @param assumed PVs promised to claims of pods in flight
   */
  static @Nullable PersistentVolume find(
      PersistentVolumeClaim claim,
      List<PersistentVolume> pvs,
      NodeRef node,
      Set<String> excluded,
      AssumedVolumes assumed) {
    BigDecimal requested;
    try {
      requested = Volumes.requestedBytes(claim);
    } catch (IllegalArgumentException e) {
      return null;
    }
    String claimKey = key(claim);
    PersistentVolume smallest = null;
    BigDecimal smallestSize = BigDecimal.ZERO;
    for (PersistentVolume pv : pvs) {
      String name = pv.getMetadata().getName();
      if (excluded.contains(name)) {
        continue;
      }
      AssumedVolumes.Assumed promise = assumed.get(name);
      boolean promisedHere = promise != null && promise.claimKey().equals(claimKey);
      if (promise != null && !promisedHere) {
        continue;
      }
      ObjectReference ref = pv.getSpec() == null ? null : pv.getSpec().getClaimRef();
      boolean boundHere = promisedHere || (ref != null && refersTo(ref, claim));
      if (ref != null && !boundHere) {
        continue;
      }
      BigDecimal size;
      try {
        size = Volumes.capacityBytes(pv);
      } catch (IllegalArgumentException e) {
        continue;
      }
      if (size.compareTo(requested) < 0 || volumeModeMismatch(claim, pv)) {
        continue;
      }
      if (pv.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      boolean affinityOk = Volumes.nodeAffinityMatches(pv, node.name(), node.labels());
      if (boundHere) {
        return affinityOk ? pv : null;
      }
      if (pv.getStatus() == null || !"Available".equals(pv.getStatus().getPhase())) {
        continue;
      }
      if (claim.getSpec() != null
          && !LabelSelectors.matches(claim.getSpec().getSelector(), pv.getMetadata().getLabels())) {
        continue;
      }
      if (!Volumes.className(pv).equals(Volumes.className(claim))
          || !affinityOk
          || !accessModesMatch(claim, pv)) {
        continue;
      }
      if (smallest == null || smallestSize.compareTo(size) > 0) {
        smallest = pv;
        smallestSize = size;
      }
    }
    return smallest;
  }

  /** A node's name and labels. */
  record NodeRef(String name, Map<String, String> labels) {}

  static String key(PersistentVolumeClaim claim) {
    return claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
  }

  /** Whether {@code ref} names the claim (and its UID, when the ref has one). */
  static boolean refersTo(ObjectReference ref, PersistentVolumeClaim claim) {
    return Objects.equals(ref.getName(), claim.getMetadata().getName())
        && Objects.equals(ref.getNamespace(), claim.getMetadata().getNamespace())
        && (ref.getUid() == null
            || ref.getUid().isEmpty()
            || ref.getUid().equals(claim.getMetadata().getUid()));
  }

  private static boolean volumeModeMismatch(PersistentVolumeClaim claim, PersistentVolume pv) {
    String want = claim.getSpec() == null ? null : claim.getSpec().getVolumeMode();
    String have = pv.getSpec() == null ? null : pv.getSpec().getVolumeMode();
    return !Objects.requireNonNullElse(want, "Filesystem")
        .equals(Objects.requireNonNullElse(have, "Filesystem"));
  }

  /** Every access mode the claim asks for is one the PV offers. */
  private static boolean accessModesMatch(PersistentVolumeClaim claim, PersistentVolume pv) {
    List<String> want = claim.getSpec() == null ? null : claim.getSpec().getAccessModes();
    List<String> have = pv.getSpec() == null ? null : pv.getSpec().getAccessModes();
    if (want == null || want.isEmpty()) {
      return true;
    }
    return have != null && have.containsAll(want);
  }
}
