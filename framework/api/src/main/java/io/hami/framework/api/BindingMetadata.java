package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Annotations and labels to carry in the pod's {@code Binding}, stored in {@link CycleState} under
 * {@link #KEY} by PreBind plugins. The API server copies a Binding's annotations onto the pod in
 * the same write that sets {@code spec.nodeName} (and, from Kubernetes 1.35 with the default {@code
 * PodTopologyLabelsAdmission} gate, its labels too), so a plugin that would otherwise patch the pod
 * before binding saves a write, and the pod never carries them without its node.
 *
 * <p>The Bind plugin that binds through the API ({@code DefaultBinder}) sends them; a Bind plugin
 * that binds otherwise must apply them itself. Nothing is written when binding fails. Immutable;
 * plugins add with {@link #add}, on the binding thread.
 *
 * @param annotations merged over the pod's annotations
 * @param labels merged over the pod's labels, where the API server copies them
 */
public record BindingMetadata(Map<String, String> annotations, Map<String, String> labels)
    implements StateData {

  /** Where PreBind plugins leave the metadata for Bind. */
  public static final StateKey<BindingMetadata> KEY =
      StateKey.of("FrameworkBindingMetadata", BindingMetadata.class);

  /** Nothing to carry. */
  public static final BindingMetadata EMPTY = new BindingMetadata(Map.of(), Map.of());

  public BindingMetadata {
    annotations = ImmutableMap.copyOf(annotations);
    labels = ImmutableMap.copyOf(labels);
  }

  /** The metadata stored in {@code state}, or {@link #EMPTY}. */
  public static BindingMetadata of(CycleState state) {
    BindingMetadata m = state.get(KEY);
    return m == null ? EMPTY : m;
  }

  /**
   * Adds {@code annotations} and {@code labels} to the metadata in {@code state}; a key already
   * there takes the new value.
   */
  public static void add(
      CycleState state, Map<String, String> annotations, Map<String, String> labels) {
    requireNonNull(annotations, "annotations");
    requireNonNull(labels, "labels");
    BindingMetadata current = of(state);
    state.write(
        KEY,
        new BindingMetadata(
            merged(current.annotations, annotations), merged(current.labels, labels)));
  }

  /** True when there is nothing to carry. */
  public boolean isEmpty() {
    return annotations.isEmpty() && labels.isEmpty();
  }

  private static Map<String, String> merged(Map<String, String> a, Map<String, String> b) {
    if (a.isEmpty()) {
      return b;
    }
    Map<String, String> out = new LinkedHashMap<>(a);
    out.putAll(b);
    return out;
  }
}
