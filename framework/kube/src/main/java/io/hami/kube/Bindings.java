package io.hami.kube;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.LinkedHashMap;
import java.util.Map;

/** The Binding objects that assign pods to nodes. */
public final class Bindings {
  private Bindings() {}

  /**
   * The Binding of {@code pod} to {@code node}. It carries the pod's UID as a precondition, so a
   * pod deleted and re-created under the same name meanwhile is not bound by mistake.
   */
  public static Binding of(Pod pod, String node) {
    return of(pod, node, Map.of(), Map.of());
  }

  /**
   * Like {@link #of(Pod, String)}, with metadata the API server merges onto the pod as it binds it:
   * the annotations always, the labels from Kubernetes 1.35 (gate {@code
   * PodTopologyLabelsAdmission}, on by default).
   */
  public static Binding of(
      Pod pod, String node, Map<String, String> annotations, Map<String, String> labels) {
    return new BindingBuilder()
        .withNewMetadata()
        .withName(pod.getMetadata().getName())
        .withNamespace(pod.getMetadata().getNamespace())
        .withUid(pod.getMetadata().getUid())
        .withAnnotations(annotations.isEmpty() ? null : new LinkedHashMap<>(annotations))
        .withLabels(labels.isEmpty() ? null : new LinkedHashMap<>(labels))
        .endMetadata()
        .withNewTarget()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(node)
        .endTarget()
        .build();
  }

  /**
   * Does to {@code pod} what the API server does when it accepts {@code binding}: sets {@code
   * spec.nodeName} and merges the Binding's annotations and labels over the pod's. For stores and
   * mock servers that emulate the API server; mutates {@code pod}.
   */
  public static void applyTo(Pod pod, Binding binding) {
    pod.getSpec().setNodeName(binding.getTarget().getName());
    Map<String, String> annos = binding.getMetadata().getAnnotations();
    if (annos != null && !annos.isEmpty()) {
      Map<String, String> merged =
          pod.getMetadata().getAnnotations() == null
              ? new LinkedHashMap<>()
              : new LinkedHashMap<>(pod.getMetadata().getAnnotations());
      merged.putAll(annos);
      pod.getMetadata().setAnnotations(merged);
    }
    Map<String, String> labels = binding.getMetadata().getLabels();
    if (labels != null && !labels.isEmpty()) {
      Map<String, String> merged =
          pod.getMetadata().getLabels() == null
              ? new LinkedHashMap<>()
              : new LinkedHashMap<>(pod.getMetadata().getLabels());
      merged.putAll(labels);
      pod.getMetadata().setLabels(merged);
    }
  }
}
