package io.hami.webhook;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ScopedResourceSelectorRequirement;
import io.hami.kube.PodPhases;
import io.hami.model.Decoded;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.Quantities;
import io.hami.model.resource.RequestRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ResourceQuota on GPU memory and cores (hami-protocol §6.8): a namespace quota's {@code
 * spec.hard["limits.nvidia.com/gpumem"]} (MiB, times {@code memoryFactor}) and {@code
 * ["limits.nvidia.com/gpucores"]} (percent) cap the sum over the namespace's pods.
 *
 * <p>A pod counts its per-GPU amount times its GPU count, so a 4-GPU pod with 4096 MiB per GPU uses
 * 16384 (HAMi counts it once). A pod's usage is the larger of its app containers' sum and its
 * largest init container, as Kubernetes counts init containers. Scheduled pods count what was
 * granted ({@code hami.io/vgpu-devices-allocated}, where a percentage is resolved to MiB); pods not
 * yet scheduled count what they ask for.
 *
 * <p>Kubernetes itself does not enforce {@code limits.<extended resource>} entries, so the webhook
 * is where they take effect.
 */
final class GpuQuota {

  private static final Logger log = LoggerFactory.getLogger(GpuQuota.class);

  /** Pod annotation with the devices granted by the scheduler, never erased. */
  static final String ALLOCATED_ANNOTATION = "hami.io/vgpu-devices-allocated";

  /** Memory (MiB) and core percent, summed over GPUs. */
  record Usage(long memory, long cores) {
    static final Usage ZERO = new Usage(0, 0);

    Usage plus(Usage o) {
      return new Usage(memory + o.memory, cores + o.cores);
    }

    Usage max(Usage o) {
      return new Usage(Math.max(memory, o.memory), Math.max(cores, o.cores));
    }

    boolean isZero() {
      return memory == 0 && cores == 0;
    }
  }

  private final RequestRule rule;
  private final String memoryKey;
  private final String coreKey;

  GpuQuota(RequestRule rule) {
    this.rule = rule;
    this.memoryKey = rule.names().memory().isEmpty() ? "" : "limits." + rule.names().memory();
    this.coreKey = rule.names().core().isEmpty() ? "" : "limits." + rule.names().core();
  }

  /** Whether any of these quotas caps GPU memory or cores for this pod. */
  boolean constrains(List<ResourceQuota> quotas, Pod pod) {
    for (ResourceQuota q : quotas) {
      if (hard(q).isPresent() && appliesTo(q, pod)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Checks a new pod against the namespace's quotas.
   *
   * @param request the pod's usage (see {@link #requested})
   * @param existing the namespace's pods, without the new one
   * @return why the pod does not fit, or empty when it does
   */
  Optional<String> check(Pod pod, Usage request, List<ResourceQuota> quotas, List<Pod> existing) {
    if (request.isZero()) {
      return Optional.empty();
    }
    for (ResourceQuota q : quotas) {
      Optional<Usage> hard = hard(q);
      if (hard.isEmpty() || !appliesTo(q, pod)) {
        continue;
      }
      Usage used = Usage.ZERO;
      for (Pod p : existing) {
        if (counts(p) && appliesTo(q, p)) {
          used = used.plus(used(p));
        }
      }
      Usage limit = hard.get();
      String name = q.getMetadata() == null ? "" : q.getMetadata().getName();
      if (limit.memory() >= 0
          && request.memory() > 0
          && used.memory() + request.memory() > limit.memory()) {
        return Optional.of(
            exceeded(name, memoryKey, request.memory(), used.memory(), limit.memory(), " MiB"));
      }
      if (limit.cores() >= 0
          && request.cores() > 0
          && used.cores() + request.cores() > limit.cores()) {
        return Optional.of(
            exceeded(name, coreKey, request.cores(), used.cores(), limit.cores(), "%"));
      }
    }
    return Optional.empty();
  }

  private static String exceeded(
      String quota, String key, long requested, long used, long limit, String unit) {
    return "exceeding resource quota "
        + quota
        + ": "
        + key
        + " requested "
        + requested
        + unit
        + " (per-GPU amount x GPU count), used "
        + used
        + unit
        + ", limited "
        + limit
        + unit;
  }

  /** The usage a pod asks for, from its containers' resources (after the webhook's defaults). */
  Usage requested(Pod pod) {
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return Usage.ZERO;
    }
    Usage init = Usage.ZERO;
    for (Container c : list(spec.getInitContainers())) {
      init = init.max(ofRequest(rule.deriveOrNone(ContainerResources.of(c))));
    }
    Usage app = Usage.ZERO;
    for (Container c : list(spec.getContainers())) {
      app = app.plus(ofRequest(rule.deriveOrNone(ContainerResources.of(c))));
    }
    return app.max(init);
  }

  private static Usage ofRequest(ContainerRequest r) {
    if (r.isEmpty()) {
      return Usage.ZERO;
    }
    return new Usage((long) r.memreq() * r.nums(), (long) r.coresreq() * r.nums());
  }

  /** What an existing pod uses: its granted devices if scheduled, else its request. */
  Usage used(Pod pod) {
    Map<String, String> annotations =
        pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations();
    String allocated = annotations == null ? null : annotations.get(ALLOCATED_ANNOTATION);
    if (allocated == null || allocated.isEmpty()) {
      return requested(pod);
    }
    Decoded<PodDevices> decoded = PodDevicesCodec.decode(allocated);
    if (!(decoded instanceof Decoded.Ok<PodDevices> ok)) {
      log.debug(
          "quota: undecodable {} on pod {}, counting its request",
          ALLOCATED_ANNOTATION,
          pod.getMetadata().getName());
      return requested(pod);
    }
    int inits = pod.getSpec() == null ? 0 : list(pod.getSpec().getInitContainers()).size();
    PodDevices devices = ok.value();
    Usage init = Usage.ZERO;
    Usage app = Usage.ZERO;
    for (int i = 0; i < devices.size(); i++) {
      Usage u = Usage.ZERO;
      for (ContainerDevice d : devices.container(i)) {
        u = u.plus(new Usage(d.usedmem(), d.usedcores()));
      }
      if (i < inits) {
        init = init.max(u);
      } else {
        app = app.plus(u);
      }
    }
    return app.max(init);
  }

  /** Pods that have finished release their quota, as in Kubernetes. */
  private static boolean counts(Pod p) {
    return !PodPhases.isTerminal(p);
  }

  /** The GPU entries of a quota's hard limits; -1 for an entry that is absent. */
  private Optional<Usage> hard(ResourceQuota q) {
    Map<String, Quantity> hard = q.getSpec() == null ? null : q.getSpec().getHard();
    if (hard == null) {
      return Optional.empty();
    }
    long mem = limit(q, hard, memoryKey);
    long cores = limit(q, hard, coreKey);
    if (mem < 0 && cores < 0) {
      return Optional.empty();
    }
    long factor = Math.max(rule.memoryFactor(), 1);
    return Optional.of(new Usage(mem < 0 ? -1 : mem * factor, cores));
  }

  private static long limit(ResourceQuota q, Map<String, Quantity> hard, String key) {
    if (key.isEmpty()) {
      return -1;
    }
    Quantity v = hard.get(key);
    if (v == null) {
      return -1;
    }
    String text =
        (v.getAmount() == null ? "" : v.getAmount()) + (v.getFormat() == null ? "" : v.getFormat());
    Decoded<Long> parsed = Quantities.parseInt64(key, text);
    if (!(parsed instanceof Decoded.Ok<Long> ok) || ok.value() < 0) {
      log.warn("quota {} has an unusable {}={}, ignoring it", q.getMetadata().getName(), key, text);
      return -1;
    }
    return ok.value();
  }

  /** Quota scopes as Kubernetes applies them to pods; unknown scopes apply, as in HAMi. */
  static boolean appliesTo(ResourceQuota q, Pod pod) {
    if (q.getSpec() == null) {
      return true;
    }
    for (String scope : list(q.getSpec().getScopes())) {
      if (!scopeMatches(scope, pod, null)) {
        return false;
      }
    }
    if (q.getSpec().getScopeSelector() != null) {
      for (ScopedResourceSelectorRequirement r :
          list(q.getSpec().getScopeSelector().getMatchExpressions())) {
        if (!scopeMatches(r.getScopeName(), pod, r)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean scopeMatches(
      String scope, Pod pod, @Nullable ScopedResourceSelectorRequirement req) {
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    return switch (scope) {
      case "Terminating" -> spec.getActiveDeadlineSeconds() != null;
      case "NotTerminating" -> spec.getActiveDeadlineSeconds() == null;
      case "BestEffort" -> isBestEffort(spec);
      case "NotBestEffort" -> !isBestEffort(spec);
      case "PriorityClass" -> req == null || priorityMatches(spec.getPriorityClassName(), req);
      default -> true;
    };
  }

  private static boolean priorityMatches(
      @Nullable String priorityClass, ScopedResourceSelectorRequirement req) {
    List<String> values = list(req.getValues());
    String op = req.getOperator() == null ? "" : req.getOperator();
    boolean set = priorityClass != null && !priorityClass.isEmpty();
    return switch (op) {
      case "In" -> set && values.contains(priorityClass);
      case "NotIn" -> !set || !values.contains(priorityClass);
      case "Exists" -> set;
      case "DoesNotExist" -> !set;
      default -> true;
    };
  }

  private static boolean isBestEffort(PodSpec spec) {
    List<Container> all = new ArrayList<>(list(spec.getInitContainers()));
    all.addAll(list(spec.getContainers()));
    for (Container c : all) {
      if (c.getResources() == null) {
        continue;
      }
      for (Map<String, Quantity> m :
          List.of(nonNull(c.getResources().getRequests()), nonNull(c.getResources().getLimits()))) {
        if (m.containsKey("cpu") || m.containsKey("memory")) {
          return false;
        }
      }
    }
    return true;
  }

  private static Map<String, Quantity> nonNull(@Nullable Map<String, Quantity> m) {
    return m == null ? Map.of() : m;
  }

  private static <T> List<T> list(@Nullable List<T> l) {
    return l == null ? List.of() : l;
  }
}
