package io.hami.model.vendor;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.model.resource.Quantities;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the protocol reads from a node: its name, annotations, and capacity/allocatable quantities.
 *
 * @param name node name
 * @param annotations node annotations
 * @param capacity {@code status.capacity} as quantity strings
 * @param allocatable {@code status.allocatable} as quantity strings
 */
public record NodeFacts(
    String name,
    Map<String, String> annotations,
    Map<String, String> capacity,
    Map<String, String> allocatable) {

  public NodeFacts {
    annotations = Map.copyOf(annotations);
    capacity = Map.copyOf(capacity);
    allocatable = Map.copyOf(allocatable);
  }

  /** A node known only by its annotations. */
  public static NodeFacts of(String name, Map<String, String> annotations) {
    return new NodeFacts(name, annotations, Map.of(), Map.of());
  }

  /** From a fabric8 node; missing parts are empty. */
  public static NodeFacts of(Node node) {
    var meta = node.getMetadata();
    String name = meta == null || meta.getName() == null ? "" : meta.getName();
    Map<String, String> annos = meta == null ? null : meta.getAnnotations();
    var status = node.getStatus();
    return new NodeFacts(
        name,
        annos == null ? Map.of() : nonNull(annos),
        status == null ? Map.of() : quantities(status.getCapacity()),
        status == null ? Map.of() : quantities(status.getAllocatable()));
  }

  private static Map<String, String> nonNull(Map<String, String> m) {
    Map<String, String> out = new LinkedHashMap<>();
    m.forEach(
        (k, v) -> {
          if (k != null && v != null) {
            out.put(k, v);
          }
        });
    return out;
  }

  private static Map<String, String> quantities(@Nullable Map<String, Quantity> m) {
    Map<String, String> out = new LinkedHashMap<>();
    if (m != null) {
      m.forEach(
          (k, q) -> {
            if (k != null && q != null) {
              out.put(
                  k,
                  (q.getAmount() == null ? "" : q.getAmount())
                      + (q.getFormat() == null ? "" : q.getFormat()));
            }
          });
    }
    return out;
  }

  /** An allocatable count as a whole number; 0 when absent or not a whole number. */
  public long allocatableCount(String resource) {
    String q = allocatable.get(resource);
    return q == null ? 0 : Quantities.parseInt64(resource, q).orElse(0L);
  }
}
