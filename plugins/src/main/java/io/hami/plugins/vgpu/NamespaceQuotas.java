package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.hami.framework.api.Quantities;
import io.hami.kube.Informers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPU limits of every namespace, per vendor, from its {@code ResourceQuota} objects (protocol
 * §6.8): the {@code spec.hard} entries {@code limits.<memory resource>} and {@code limits.<core
 * resource>} of each vendor ({@code limits.nvidia.com/gpumem}, {@code limits.hygon.com/dcumem}
 * ...). Several quotas in one namespace combine to the smallest limit. Updated by informer events;
 * reads take no lock.
 */
public final class NamespaceQuotas {

  /** Limits of one vendor in one namespace; -1 means none. */
  public record Limits(long mem, long cores) {
    public static final Limits NONE = new Limits(-1, -1);

    Limits min(Limits o) {
      return new Limits(minSet(mem, o.mem), minSet(cores, o.cores));
    }

    private static long minSet(long a, long b) {
      return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
  }

  /** The resources whose quota entries limit a vendor. */
  public record Tracked(String vendor, String memoryResource, String coreResource) {}

  private static final Logger log = LoggerFactory.getLogger(NamespaceQuotas.class);

  private final List<Tracked> tracked;
  // namespace -> quota name -> vendor -> limits
  private final ConcurrentHashMap<String, Map<String, Map<String, Limits>>> byQuota =
      new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ImmutableMap<String, Limits>> effective =
      new ConcurrentHashMap<>();

  /** Tracks each vendor's memory and core resources. */
  public NamespaceQuotas(List<Tracked> tracked) {
    this.tracked = List.copyOf(tracked);
  }

  /**
   * Tracks NVIDIA only.
   *
   * @param memoryResource e.g. {@code nvidia.com/gpumem}
   * @param coreResource e.g. {@code nvidia.com/gpucores}
   */
  public NamespaceQuotas(String memoryResource, String coreResource) {
    this(List.of(new Tracked("NVIDIA", memoryResource, coreResource)));
  }

  /** Tracks the vendors' memory and core resources. */
  public static NamespaceQuotas of(List<GpuVendor> vendors) {
    return new NamespaceQuotas(
        vendors.stream()
            .map(v -> new Tracked(v.word(), v.names().memory(), v.names().core()))
            .toList());
  }

  /** The namespace's NVIDIA limits; {@link Limits#NONE} when it has none. */
  public Limits limits(String namespace) {
    return limits(namespace, "NVIDIA");
  }

  /** The namespace's limits on one vendor; {@link Limits#NONE} when it has none. */
  public Limits limits(String namespace, String vendor) {
    ImmutableMap<String, Limits> m = effective.get(namespace);
    return m == null ? Limits.NONE : m.getOrDefault(vendor, Limits.NONE);
  }

  /** Every limited vendor of the namespace; empty when it has no GPU quota. */
  public Map<String, Limits> all(String namespace) {
    ImmutableMap<String, Limits> m = effective.get(namespace);
    return m == null ? Map.of() : m;
  }

  /** Quota added or changed. */
  public void upsert(ResourceQuota q) {
    String ns = q.getMetadata().getNamespace();
    String name = q.getMetadata().getName();
    if (ns == null || name == null) {
      return;
    }
    Map<String, Quantity> hard = q.getSpec() == null ? null : q.getSpec().getHard();
    Map<String, Limits> limits = new HashMap<>();
    if (hard != null) {
      for (Tracked t : tracked) {
        Limits l =
            new Limits(
                amount(hard, t.memoryResource(), ns, name),
                amount(hard, t.coreResource(), ns, name));
        if (!l.equals(Limits.NONE)) {
          limits.put(t.vendor(), l);
        }
      }
    }
    byQuota.compute(
        ns,
        (k, m) -> {
          Map<String, Map<String, Limits>> out = m == null ? new HashMap<>() : m;
          if (limits.isEmpty()) {
            out.remove(name);
          } else {
            out.put(name, Map.copyOf(limits));
          }
          recompute(ns, out);
          return out.isEmpty() ? null : out;
        });
  }

  /** Quota deleted. */
  public void delete(ResourceQuota q) {
    String ns = q.getMetadata().getNamespace();
    String name = q.getMetadata().getName();
    if (ns == null || name == null) {
      return;
    }
    byQuota.computeIfPresent(
        ns,
        (k, m) -> {
          m.remove(name);
          recompute(ns, m);
          return m.isEmpty() ? null : m;
        });
  }

  private void recompute(String ns, Map<String, Map<String, Limits>> quotas) {
    Map<String, Limits> out = new HashMap<>();
    for (Map<String, Limits> q : quotas.values()) {
      q.forEach((vendor, l) -> out.merge(vendor, l, Limits::min));
    }
    if (out.isEmpty()) {
      effective.remove(ns);
    } else {
      effective.put(ns, ImmutableMap.copyOf(out));
    }
  }

  private static long amount(Map<String, Quantity> hard, String resource, String ns, String name) {
    if (resource.isEmpty()) {
      return -1;
    }
    String key = "limits." + resource;
    Quantity v = hard.get(key);
    if (v == null) {
      return -1;
    }
    try {
      return Quantities.toNonNegativeLongCeil(v);
    } catch (RuntimeException e) {
      log.warn(
          "resource quota entry ignored namespace={} quota={} field=spec.hard.{} value={} error={}",
          ns,
          name,
          key,
          v,
          e.getMessage());
      return -1;
    }
  }

  /** The informer handler that keeps these limits current; it only updates the maps. */
  public ResourceEventHandler<ResourceQuota> handler() {
    return Informers.onLatest(this::upsert, this::delete);
  }
}
