package io.hami.framework.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.util.List;

/**
 * What binding the pod's delayed claims on one node takes: static bindings to existing PVs and
 * claims to provision there.
 *
 * @param node the node's name and labels (PreBind checks provisioned PVs against them)
 * @param bindings claims bound to a chosen PV
 * @param provisions claims to be provisioned on the node
 */
record NodeVolumes(
    VolumeMatcher.NodeRef node, List<Binding> bindings, List<PersistentVolumeClaim> provisions) {

  /** A claim and the PV chosen for it. */
  record Binding(PersistentVolume pv, PersistentVolumeClaim claim) {}

  NodeVolumes {
    bindings = List.copyOf(bindings);
    provisions = List.copyOf(provisions);
  }

  /** Whether there is nothing to bind (every claim was bound already). */
  boolean isEmpty() {
    return bindings.isEmpty() && provisions.isEmpty();
  }
}
