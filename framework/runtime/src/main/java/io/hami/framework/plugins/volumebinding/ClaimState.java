package io.hami.framework.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.hami.framework.api.StateData;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The pod's claims as PreFilter found them, and what Filter decided per node.
 *
 * <p>Concurrency: the claim lists are immutable. Filter runs concurrently for different nodes and
 * puts each node's decision into {@link #byNode}; Reserve (scheduling thread) sets {@link
 * #reserved}, read later by PreBind on a binding thread.
 */
final class ClaimState implements StateData {
  /** A fully bound claim and its PV (null when the PV does not exist). */
  record BoundClaim(PersistentVolumeClaim claim, @Nullable PersistentVolume pv) {}

  final List<BoundClaim> bound;

  /** Unbound claims of WaitForFirstConsumer classes. */
  final List<PersistentVolumeClaim> delayed;

  /** The classes of the delayed claims, by name. */
  final Map<String, StorageClass> classes;

  /** The PVs of each delayed claim's class, by class name. */
  final Map<String, List<PersistentVolume>> pvsByClass;

  final Map<String, NodeVolumes> byNode;
  volatile @Nullable NodeVolumes reserved;

  ClaimState(
      List<BoundClaim> bound,
      List<PersistentVolumeClaim> delayed,
      Map<String, StorageClass> classes,
      Map<String, List<PersistentVolume>> pvsByClass) {
    this(bound, delayed, classes, pvsByClass, new ConcurrentHashMap<>());
  }

  private ClaimState(
      List<BoundClaim> bound,
      List<PersistentVolumeClaim> delayed,
      Map<String, StorageClass> classes,
      Map<String, List<PersistentVolume>> pvsByClass,
      Map<String, NodeVolumes> byNode) {
    this.bound = List.copyOf(bound);
    this.delayed = List.copyOf(delayed);
    this.classes = Map.copyOf(classes);
    this.pvsByClass = Map.copyOf(pvsByClass);
    this.byNode = byNode;
  }

  @Override
  public StateData copy() {
    ClaimState c =
        new ClaimState(bound, delayed, classes, pvsByClass, new ConcurrentHashMap<>(byNode));
    c.reserved = reserved;
    return c;
  }
}
