package io.hami.kube;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;

/** The Binding objects that assign pods to nodes. */
public final class Bindings {
  private Bindings() {}

  /**
   * The Binding of {@code pod} to {@code node}. It carries the pod's UID as a precondition, so a
   * pod deleted and re-created under the same name meanwhile is not bound by mistake.
   */
  public static Binding of(Pod pod, String node) {
    return new BindingBuilder()
        .withNewMetadata()
        .withName(pod.getMetadata().getName())
        .withNamespace(pod.getMetadata().getNamespace())
        .withUid(pod.getMetadata().getUid())
        .endMetadata()
        .withNewTarget()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(node)
        .endTarget()
        .build();
  }
}
