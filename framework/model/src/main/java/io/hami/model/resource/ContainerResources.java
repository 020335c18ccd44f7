package io.hami.model.resource;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A container's resource limits and requests as quantity strings. Values are read from limits,
 * falling back to requests.
 *
 * @param limits resource name → quantity
 * @param requests resource name → quantity
 */
public record ContainerResources(Map<String, String> limits, Map<String, String> requests) {

  public ContainerResources {
    limits = Map.copyOf(limits);
    requests = Map.copyOf(requests);
  }

  /** Limits only. */
  public static ContainerResources ofLimits(Map<String, String> limits) {
    return new ContainerResources(limits, Map.of());
  }

  /** From a fabric8 container; a container without resources has none. */
  public static ContainerResources of(Container c) {
    return of(c.getResources());
  }

  /** From fabric8 resource requirements. */
  public static ContainerResources of(@Nullable ResourceRequirements r) {
    if (r == null) {
      return new ContainerResources(Map.of(), Map.of());
    }
    return new ContainerResources(strings(r.getLimits()), strings(r.getRequests()));
  }

  private static Map<String, String> strings(@Nullable Map<String, Quantity> m) {
    Map<String, String> out = new LinkedHashMap<>();
    if (m != null) {
      m.forEach(
          (k, q) -> {
            if (k != null && q != null) {
              String amount = q.getAmount() == null ? "" : q.getAmount();
              String format = q.getFormat() == null ? "" : q.getFormat();
              out.put(k, amount + format);
            }
          });
    }
    return out;
  }

  /** The quantity for {@code name}: the limit, else the request, else null. */
  public @Nullable String get(String name) {
    if (name.isEmpty()) {
      return null;
    }
    String v = limits.get(name);
    return v != null ? v : requests.get(name);
  }

  /** Whether {@code name} is set in limits or requests. */
  public boolean has(String name) {
    return get(name) != null;
  }
}
