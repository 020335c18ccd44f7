package io.hami.plugins.vgpu;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a node's registration depends on (the registration annotations, allocatable and capacity),
 * so that a node update that changes none of them is not re-read.
 */
final class RegistrationInputs {

  /** The annotations registrations depend on; empty means every annotation. */
  private volatile Set<String> keys;

  RegistrationInputs(Set<String> keys) {
    this.keys = Set.copyOf(keys);
  }

  void setKeys(Set<String> keys) {
    this.keys = Set.copyOf(keys);
  }

  /** A value equal to an earlier one exactly when none of the inputs changed. */
  Object of(Node node) {
    Map<String, String> annos = node.getMetadata().getAnnotations();
    Object alloc = node.getStatus() == null ? null : node.getStatus().getAllocatable();
    Object cap = node.getStatus() == null ? null : node.getStatus().getCapacity();
    Map<String, String> relevant = new HashMap<>();
    if (annos != null) {
      Set<String> keys = this.keys;
      if (keys.isEmpty()) {
        relevant.putAll(annos);
      } else {
        for (String k : keys) {
          String v = annos.get(k);
          if (v != null) {
            relevant.put(k, v);
          }
        }
      }
    }
    return Arrays.asList(
        relevant,
        alloc == null ? null : new HashMap<>((Map<?, ?>) alloc),
        cap == null ? null : new HashMap<>((Map<?, ?>) cap));
  }
}
