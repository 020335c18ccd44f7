package io.hami.framework.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.Volumes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * PreBind's half of the volume binder, as kube's {@code BindPodVolumes}: writes each static binding
 * into its PV ({@code spec.claimRef} and {@code pv.kubernetes.io/bound-by-controller}) and each
 * claim to provision's {@code volume.kubernetes.io/selected-node} annotation, then waits until
 * every such claim is Bound (the PV controller and the provisioner finish the job), polling the
 * listers.
 *
 * <p>Without an API server (an in-memory cluster) the store plays the PV controller synchronously
 * on each write, so the claims are Bound on the first look or never: then it fails at once rather
 * than wait on a clock that does not move.
 *
 * <p>Runs on a binding thread; blocks for up to the bind timeout.
 */
final class VolumeBinder {
  private final FrameworkHandle handle;
  private final ObjectLister<PersistentVolumeClaim> pvcs;
  private final ObjectLister<PersistentVolume> pvs;
  private final Duration timeout;
  private final Duration pollInterval;

  VolumeBinder(
      FrameworkHandle handle,
      ObjectLister<PersistentVolumeClaim> pvcs,
      ObjectLister<PersistentVolume> pvs,
      Duration timeout,
      Duration pollInterval) {
    this.handle = handle;
    this.pvcs = pvcs;
    this.pvs = pvs;
    this.timeout = timeout;
    this.pollInterval = pollInterval;
  }

  /** Writes the bindings of {@code volumes} and waits until their claims are Bound. */
  Status bind(NodeVolumes volumes) {
    Status written = write(volumes);
    if (!written.isSuccess()) {
      return written;
    }
    Instant deadline = handle.clock().instant().plus(timeout);
    while (true) {
      Check c = check(volumes);
      if (c.failure() != null) {
        return Status.error("binding volumes: " + c.failure());
      }
      if (c.pending().isEmpty()) {
        return Status.success();
      }
      if (handle.client().isEmpty()) {
        return Status.error(
            "binding volumes: PersistentVolumeClaims "
                + String.join(", ", c.pending())
                + " are not bound and nothing in this cluster will bind them");
      }
      if (!handle.clock().instant().isBefore(deadline)) {
        return Status.error(
            "binding volumes: timed out after "
                + timeout.toSeconds()
                + "s waiting for PersistentVolumeClaims "
                + String.join(", ", c.pending())
                + " to be bound");
      }
      try {
        Thread.sleep(pollInterval.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Status.error("binding volumes: interrupted");
      }
    }
  }

  private Status write(NodeVolumes volumes) {
    // The versions Filter saw, resourceVersion included: a PV or claim changed since then makes
    // the update fail on a conflict instead of overwriting the change, as in kube.
    for (NodeVolumes.Binding b : volumes.bindings()) {
      PersistentVolume pv = b.pv();
      ObjectReference ref = pv.getSpec() == null ? null : pv.getSpec().getClaimRef();
      if (ref != null && VolumeMatcher.refersTo(ref, b.claim())) {
        continue;
      }
      Status s = handle.updateObject(withClaimRef(pv, b.claim()));
      if (!s.isSuccess()) {
        return Status.error("binding volumes: " + s.message());
      }
    }
    String node = volumes.node().name();
    for (PersistentVolumeClaim claim : volumes.provisions()) {
      if (node.equals(annotation(claim, Volumes.ANN_SELECTED_NODE))) {
        continue;
      }
      Status s =
          handle.updateObject(
              new PersistentVolumeClaimBuilder(claim)
                  .editMetadata()
                  .addToAnnotations(Volumes.ANN_SELECTED_NODE, node)
                  .endMetadata()
                  .build());
      if (!s.isSuccess()) {
        return Status.error("binding volumes: " + s.message());
      }
    }
    return Status.success();
  }

  /** The PV bound to {@code claim}, as the PV controller would write it. */
  static PersistentVolume withClaimRef(PersistentVolume pv, PersistentVolumeClaim claim) {
    return new PersistentVolumeBuilder(pv)
        .editMetadata()
        .addToAnnotations(Volumes.ANN_BOUND_BY_CONTROLLER, "yes")
        .endMetadata()
        .editOrNewSpec()
        .withClaimRef(
            new ObjectReferenceBuilder()
                .withKind("PersistentVolumeClaim")
                .withApiVersion("v1")
                .withNamespace(claim.getMetadata().getNamespace())
                .withName(claim.getMetadata().getName())
                .withUid(claim.getMetadata().getUid())
                .withResourceVersion(claim.getMetadata().getResourceVersion())
                .build())
        .endSpec()
        .build();
  }

  /** Claims still pending ({@code namespace/name}), or why the binding cannot succeed. */
  private record Check(List<String> pending, @Nullable String failure) {
    static Check failed(String why) {
      return new Check(List.of(), why);
    }
  }

  private Check check(NodeVolumes volumes) {
    List<String> pending = new ArrayList<>();
    for (NodeVolumes.Binding b : volumes.bindings()) {
      String pvName = b.pv().getMetadata().getName();
      PersistentVolume pv = pvs.get(null, pvName);
      if (pv == null) {
        return Check.failed("persistentvolume \"" + pvName + "\" was deleted");
      }
      ObjectReference ref = pv.getSpec() == null ? null : pv.getSpec().getClaimRef();
      if (ref == null || ref.getUid() == null || ref.getUid().isEmpty()) {
        if (sameVersion(pv, b.pv())) {
          // The informer has not seen our write yet.
          pending.add(VolumeMatcher.key(b.claim()));
          continue;
        }
        return Check.failed("ClaimRef got reset for pv \"" + pvName + "\"");
      }
      PersistentVolumeClaim claim = current(b.claim());
      if (claim == null) {
        return Check.failed(
            "persistentvolumeclaim \"" + VolumeMatcher.key(b.claim()) + "\" was deleted");
      }
      if (!fullyBound(claim)) {
        pending.add(VolumeMatcher.key(claim));
      }
    }
    String node = volumes.node().name();
    for (PersistentVolumeClaim c : volumes.provisions()) {
      PersistentVolumeClaim claim = current(c);
      if (claim == null) {
        return Check.failed("persistentvolumeclaim \"" + VolumeMatcher.key(c) + "\" was deleted");
      }
      if (!node.equals(annotation(claim, Volumes.ANN_SELECTED_NODE))) {
        if (sameVersion(claim, c)) {
          // The informer has not seen our write yet.
          pending.add(VolumeMatcher.key(claim));
          continue;
        }
        return Check.failed(
            "selectedNode annotation reset for PVC \"" + claim.getMetadata().getName() + "\"");
      }
      if (!fullyBound(claim)) {
        pending.add(VolumeMatcher.key(claim));
        continue;
      }
      PersistentVolume pv = pvs.get(null, Volumes.volumeName(claim));
      if (pv == null) {
        pending.add(VolumeMatcher.key(claim));
      } else if (!Volumes.nodeAffinityMatches(pv, node, volumes.node().labels())) {
        return Check.failed(
            "pv \""
                + pv.getMetadata().getName()
                + "\" node affinity doesn't match node \""
                + node
                + "\"");
      }
    }
    return new Check(pending, null);
  }

  /** Whether the informer still holds the version Filter saw, from before PreBind's write. */
  private static boolean sameVersion(HasMetadata seen, HasMetadata before) {
    String v = seen.getMetadata().getResourceVersion();
    return v != null && v.equals(before.getMetadata().getResourceVersion());
  }

  private @Nullable PersistentVolumeClaim current(PersistentVolumeClaim c) {
    return pvcs.get(c.getMetadata().getNamespace(), c.getMetadata().getName());
  }

  static boolean fullyBound(PersistentVolumeClaim claim) {
    return !Volumes.volumeName(claim).isEmpty()
        && annotation(claim, Volumes.ANN_BIND_COMPLETED) != null;
  }

  static @Nullable String annotation(PersistentVolumeClaim claim, String key) {
    Map<String, String> ann = claim.getMetadata().getAnnotations();
    return ann == null ? null : ann.get(key);
  }
}
