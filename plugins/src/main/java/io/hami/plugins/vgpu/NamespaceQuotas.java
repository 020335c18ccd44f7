package io.hami.plugins.vgpu;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPU limits of every namespace, from its {@code ResourceQuota} objects (protocol §6.8): the
 * {@code spec.hard} entries {@code limits.<memory resource>} and {@code limits.<core resource>}.
 * Several quotas in one namespace combine to the smallest limit. Updated by informer events; reads
 * take no lock.
 */
public final class NamespaceQuotas {

  /** Limits of one namespace; -1 means none. */
  public record Limits(long mem, long cores) {
    public static final Limits NONE = new Limits(-1, -1);

    Limits min(Limits o) {
      return new Limits(minSet(mem, o.mem), minSet(cores, o.cores));
    }

    private static long minSet(long a, long b) {
      return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
  }

  private static final Logger log = LoggerFactory.getLogger(NamespaceQuotas.class);

  private final String memKey;
  private final String coreKey;
  // namespace -> quota name -> limits
  private final ConcurrentHashMap<String, Map<String, Limits>> byQuota = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Limits> effective = new ConcurrentHashMap<>();

  /**
   * @param memoryResource e.g. {@code nvidia.com/gpumem}
   * @param coreResource e.g. {@code nvidia.com/gpucores}
   */
  public NamespaceQuotas(String memoryResource, String coreResource) {
    this.memKey = "limits." + memoryResource;
    this.coreKey = "limits." + coreResource;
  }

  /** The namespace's limits; {@link Limits#NONE} when it has no GPU quota. */
  public Limits limits(String namespace) {
    return effective.getOrDefault(namespace, Limits.NONE);
  }

  /** Quota added or changed. */
  public void upsert(ResourceQuota q) {
    String ns = q.getMetadata().getNamespace();
    String name = q.getMetadata().getName();
    if (ns == null || name == null) {
      return;
    }
    Map<String, Quantity> hard = q.getSpec() == null ? null : q.getSpec().getHard();
    Limits l = hard == null
        ? Limits.NONE
        : new Limits(amount(hard, memKey, ns, name), amount(hard, coreKey, ns, name));
    byQuota.compute(
        ns,
        (k, m) -> {
          Map<String, Limits> out = m == null ? new ConcurrentHashMap<>() : m;
          if (l.equals(Limits.NONE)) {
            out.remove(name);
          } else {
            out.put(name, l);
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

  private void recompute(String ns, Map<String, Limits> quotas) {
    Limits l = Limits.NONE;
    for (Limits q : quotas.values()) {
      l = l.min(q);
    }
    if (l.equals(Limits.NONE)) {
      effective.remove(ns);
    } else {
      effective.put(ns, l);
    }
  }

  private static long amount(Map<String, Quantity> hard, String key, String ns, String name) {
    Quantity v = hard.get(key);
    if (v == null) {
      return -1;
    }
    try {
      BigDecimal d = v.getNumericalAmount();
      if (d.signum() < 0) {
        throw new ArithmeticException("negative");
      }
      return d.setScale(0, java.math.RoundingMode.CEILING).longValueExact();
    } catch (RuntimeException e) {
      log.warn("resource quota entry ignored namespace={} quota={} field=spec.hard.{} value={} error={}",
          ns, name, key, v, e.getMessage());
      return -1;
    }
  }

  /** The informer handler that keeps these limits current; it only updates the map. */
  public ResourceEventHandler<ResourceQuota> handler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(ResourceQuota q) {
        upsert(q);
      }

      @Override
      public void onUpdate(ResourceQuota oldQ, ResourceQuota newQ) {
        upsert(newQ);
      }

      @Override
      public void onDelete(ResourceQuota q, boolean finalStateUnknown) {
        delete(q);
      }
    };
  }
}
