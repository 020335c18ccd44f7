package io.hami.webhook;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hami.model.Decoded;
import io.hami.model.config.GpuCorePolicy;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.Quantities;
import io.hami.model.resource.ResourceNames;
import io.hami.webhook.PodPatch.ContainerRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The webhook's rules for a pod being created (hami-protocol §5.3, §6.8).
 *
 * <ol>
 *   <li>A pod without containers is refused. A pod labelled {@code hami.io/webhook=ignore}, in a
 *       namespace so labelled, or already naming another scheduler is left alone.
 *   <li>Every GPU value must be usable: counts whole and not negative, memory a whole number of MiB
 *       (no byte suffix such as {@code 16Gi}), percentages and cores within 0–100, priority 0 or 1,
 *       and no share (memory, percentage, cores) on a container whose GPU count is 0. Otherwise the
 *       pod is refused with a message naming the container, resource and value.
 *   <li>Init containers, then app containers: the priority resource becomes {@code
 *       CUDA_TASK_PRIORITY}; a container asking for GPU memory or cores without a count gets {@code
 *       defaultGPUNum} GPUs; a whole-card request without cores gets {@code gpucores=100}
 *       (exclusive); GPU containers get {@code GPU_CORE_UTILIZATION_POLICY} when a policy is set;
 *       containers without GPUs get {@code NVIDIA_VISIBLE_DEVICES=none} when {@code overwriteEnv}.
 *   <li>A pod with GPUs: refused if any container is privileged or {@code spec.nodeName} is set;
 *       otherwise given the scheduler name and the runtime class, and checked against quota. A
 *       container asking for another vendor's devices (Cambricon, Hygon, Iluvatar, Ascend) makes a
 *       GPU pod too, as HAMi runs every vendor's admission.
 * </ol>
 *
 * <p>Thread-safe; the only shared state is in the {@link ClusterLookup}.
 */
public final class PodAdmission {

  private static final Logger log = LoggerFactory.getLogger(PodAdmission.class);

  /** Label on a pod or namespace that turns the webhook off for it. */
  public static final String IGNORE_LABEL = "hami.io/webhook";

  static final String IGNORE_VALUE = "ignore";
  static final String DEFAULT_SCHEDULER = "default-scheduler";
  static final String ENV_PRIORITY = "CUDA_TASK_PRIORITY";
  static final String ENV_CORE_POLICY = "GPU_CORE_UTILIZATION_POLICY";
  static final String ENV_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";

  static final AdmissionDecision UNCHANGED =
      new AdmissionDecision.Allowed(JsonNodeFactory.instance.arrayNode(), List.of());

  private final WebhookConfig config;
  private final ClusterLookup cluster;
  private final GpuQuota quota;
  // Costly to build (it scans for model classes) and thread-safe: one for all.
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  public PodAdmission(WebhookConfig config, ClusterLookup cluster) {
    this.config = requireNonNull(config, "config");
    this.cluster = requireNonNull(cluster, "cluster");
    this.quota = new GpuQuota(config.rule());
  }

  /** One container after defaulting: where it is and what it asks for. */
  private record Gpu(ContainerRef ref, ContainerResources resources, boolean requests) {}

  /**
   * Decides on a pod being created.
   *
   * @param namespace the namespace from the AdmissionReview
   * @param raw the pod exactly as the API server sent it; patches are computed against it
   */
  public AdmissionDecision admit(String namespace, ObjectNode raw) {
    Pod pod;
    try {
      pod = SERIALIZATION.convertValue(raw, Pod.class);
    } catch (RuntimeException e) {
      return AdmissionDecision.invalid("pod cannot be decoded: " + e.getMessage());
    }
    PodSpec spec = pod.getSpec();
    if (spec == null || spec.getContainers() == null || spec.getContainers().isEmpty()) {
      return AdmissionDecision.invalid("pod has no containers");
    }
    if (IGNORE_VALUE.equals(label(pod, IGNORE_LABEL))) {
      return UNCHANGED;
    }
    if (!takesScheduler(spec.getSchedulerName())) {
      return UNCHANGED;
    }

    List<String> invalid = new ArrayList<>();
    List<ContainerRef> refs = containers(spec);
    List<Container> ctrs = new ArrayList<>(list(spec.getInitContainers()));
    ctrs.addAll(spec.getContainers());
    for (int i = 0; i < refs.size(); i++) {
      validate(refs.get(i), ContainerResources.of(ctrs.get(i)), invalid);
    }
    if (!invalid.isEmpty()) {
      return whenNotIgnored(namespace, AdmissionDecision.invalid(String.join("; ", invalid)));
    }

    PodPatch patch = new PodPatch(raw);
    ResourceNames names = config.names();
    List<Gpu> gpus = new ArrayList<>();
    boolean podHasGpu = false;
    boolean podHasNvidia = false;
    for (int i = 0; i < refs.size(); i++) {
      ContainerRef ref = refs.get(i);
      ContainerResources r = ContainerResources.of(ctrs.get(i));
      String priority = r.get(names.priority());
      if (priority != null) {
        patch.setEnv(ref, ENV_PRIORITY, Long.toString(wholeNumber(names.priority(), priority)));
      }
      boolean hasGpu = r.has(names.count());
      if (!hasGpu && config.defaultGpuNum() > 0 && asksForShare(r)) {
        String n = Integer.toString(config.defaultGpuNum());
        patch.setLimit(ref, names.count(), n);
        r = withLimit(r, names.count(), n);
        hasGpu = true;
      }
      if (hasGpu && config.rule().wantsExclusiveCores(r)) {
        patch.setLimit(ref, names.core(), "100");
        r = withLimit(r, names.core(), "100");
      }
      if (hasGpu && config.gpuCorePolicy() != GpuCorePolicy.DEFAULT) {
        patch.setEnv(ref, ENV_CORE_POLICY, config.gpuCorePolicy().wire());
      }
      if (!hasGpu && config.overwriteEnv()) {
        patch.setEnv(ref, ENV_VISIBLE_DEVICES, "none");
      }
      boolean other = otherVendor(r) != null;
      gpus.add(new Gpu(ref, r, hasGpu || other));
      podHasGpu |= hasGpu || other;
      podHasNvidia |= hasGpu;
    }

    if (podHasGpu) {
      Gpu first = gpus.stream().filter(Gpu::requests).findFirst().orElseThrow();
      String gpuSummary = summary(first);
      for (int i = 0; i < refs.size(); i++) {
        if (isPrivileged(ctrs.get(i))) {
          Gpu g = gpus.get(i);
          String msg =
              g.requests()
                  ? "container "
                      + g.ref().name()
                      + " is privileged and requests "
                      + summary(g)
                      + "; a privileged container sees every GPU on the node, so its limits cannot be"
                      + " enforced"
                  : "container "
                      + g.ref().name()
                      + " is privileged in a pod that requests GPUs"
                      + " (container "
                      + first.ref().name()
                      + ": "
                      + gpuSummary
                      + "); a privileged"
                      + " container sees every GPU on the node";
          return whenNotIgnored(namespace, AdmissionDecision.forbidden(msg));
        }
      }
      if (podHasNvidia
          && !config.runtimeClassName().isEmpty()
          && isEmpty(spec.getRuntimeClassName())) {
        patch.setSpecField("runtimeClassName", config.runtimeClassName());
      }
      if (!config.schedulerName().isEmpty()) {
        if (!isEmpty(spec.getNodeName())) {
          return whenNotIgnored(
              namespace,
              AdmissionDecision.forbidden(
                  "pod has node assigned (spec.nodeName="
                      + spec.getNodeName()
                      + ") but container "
                      + first.ref().name()
                      + " requests "
                      + gpuSummary
                      + "; GPU pods must be"
                      + " placed by "
                      + config.schedulerName()));
        }
        patch.setSpecField("schedulerName", config.schedulerName());
      }
    }
    if (patch.isEmpty()) {
      return UNCHANGED;
    }
    List<String> warnings = new ArrayList<>();
    Optional<AdmissionDecision> ignored = namespaceIgnored(namespace);
    if (ignored.isPresent()) {
      return ignored.get();
    }
    if (podHasGpu) {
      Optional<AdmissionDecision> overQuota = checkQuota(namespace, patch, warnings);
      if (overQuota.isPresent()) {
        return overQuota.get();
      }
    }
    return new AdmissionDecision.Allowed(patch.operations(), warnings);
  }

  /** Step 2 of §5.3: which pods this webhook may send to our scheduler. */
  private boolean takesScheduler(@Nullable String current) {
    if (current == null || current.isEmpty()) {
      return true;
    }
    if (current.equals(DEFAULT_SCHEDULER) && config.forceOverwriteDefaultScheduler()) {
      return true;
    }
    return !config.schedulerName().isEmpty() && current.equals(config.schedulerName());
  }

  private boolean asksForShare(ContainerResources r) {
    ResourceNames n = config.names();
    return r.has(n.core()) || r.has(n.memory()) || r.has(n.memoryPercentage());
  }

  /** Collects every unusable value of one container. */
  private void validate(ContainerRef ref, ContainerResources r, List<String> out) {
    ResourceNames n = config.names();
    String count = r.get(n.count());
    if (count != null) {
      checkRange(ref, n.count(), count, 0, Integer.MAX_VALUE, "a whole number of GPUs", out);
    }
    String mem = r.get(n.memory());
    if (mem != null) {
      checkMemory(ref, n.memory(), mem, out);
    }
    String pct = r.get(n.memoryPercentage());
    if (pct != null) {
      checkRange(ref, n.memoryPercentage(), pct, 0, 100, "a whole percentage", out);
    }
    String cores = r.get(n.core());
    if (cores != null) {
      checkRange(ref, n.core(), cores, 0, 100, "a whole percentage", out);
    }
    String priority = r.get(n.priority());
    if (priority != null) {
      checkRange(ref, n.priority(), priority, 0, 1, "0 (high) or 1 (low)", out);
    }
    if (count != null && Quantities.parseInt64(n.count(), count).orElse(-1L) == 0) {
      // Zero GPUs with a share would run without a GPU and without a word: say what to set.
      for (String share : List.of(n.memory(), n.memoryPercentage(), n.core())) {
        String v = r.get(share);
        if (v != null && Quantities.parseInt64(share, v).orElse(0L) > 0) {
          out.add(
              "container "
                  + ref.name()
                  + ": "
                  + share
                  + "="
                  + v
                  + " asks for a GPU share but "
                  + n.count()
                  + "="
                  + count
                  + " gives it no GPU; set "
                  + n.count()
                  + " to 1 or more, or remove "
                  + share);
        }
      }
    }
  }

  private static void checkRange(
      ContainerRef ref, String name, String q, long min, long max, String what, List<String> out) {
    Decoded<Long> v = Quantities.parseInt64(name, q);
    String prefix = "container " + ref.name() + ": " + name + "=" + q;
    if (!(v instanceof Decoded.Ok<Long> ok)) {
      out.add(prefix + " must be " + what);
    } else if (ok.value() < 0) {
      out.add(prefix + " must not be negative");
    } else if (ok.value() < min || ok.value() > max) {
      out.add(prefix + " must be " + (max == 1 ? what : "between " + min + " and " + max));
    }
  }

  private void checkMemory(ContainerRef ref, String name, String q, List<String> out) {
    String prefix = "container " + ref.name() + ": " + name + "=" + q;
    if (q.endsWith("i")) {
      Decoded<Long> bytes = Quantities.parseInt64(name, q);
      String hint =
          bytes instanceof Decoded.Ok<Long> ok && ok.value() > 0 && ok.value() % (1 << 20) == 0
              ? " (" + q + " is " + ok.value() / (1 << 20) + ")"
              : "";
      out.add(prefix + " is not a whole number of MiB; give it in MiB without a unit" + hint);
      return;
    }
    Decoded<Long> v = Quantities.parseInt64(name, q);
    if (!(v instanceof Decoded.Ok<Long> ok)) {
      out.add(prefix + " is not a whole number of MiB");
      return;
    }
    long mib = ok.value();
    if (mib < 0) {
      out.add(prefix + " must not be negative");
      return;
    }
    long factor = Math.max(config.rule().memoryFactor(), 1);
    if (mib > Integer.MAX_VALUE / factor) {
      out.add(
          prefix
              + " is too large: "
              + (factor == 1 ? "" : "times memoryFactor " + factor + " ")
              + "it exceeds "
              + Integer.MAX_VALUE
              + " MiB");
    }
  }

  /** A checked value, after {@link #validate} passed. */
  private static long wholeNumber(String name, String q) {
    return Quantities.parseInt64(name, q).orElse(0L);
  }

  private Optional<AdmissionDecision> namespaceIgnored(String namespace) {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    try {
      Optional<Map<String, String>> labels = cluster.namespaceLabels(namespace);
      if (labels.isPresent() && IGNORE_VALUE.equals(labels.get().get(IGNORE_LABEL))) {
        return Optional.of(UNCHANGED);
      }
      return Optional.empty();
    } catch (RuntimeException e) {
      // As failurePolicy Ignore would: admit unchanged rather than act on an unknown namespace.
      log.warn(
          "cannot read namespace {}, admitting the pod unchanged: {}", namespace, e.toString());
      return Optional.of(
          new AdmissionDecision.Allowed(
              JsonNodeFactory.instance.arrayNode(),
              List.of(
                  "hami webhook could not read namespace "
                      + namespace
                      + "; the pod was not sent to the GPU scheduler")));
    }
  }

  private AdmissionDecision whenNotIgnored(String namespace, AdmissionDecision decision) {
    return namespaceIgnored(namespace).orElse(decision);
  }

  private Optional<AdmissionDecision> checkQuota(
      String namespace, PodPatch patch, List<String> warnings) {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    Pod mutated = SERIALIZATION.convertValue(patch.patched(), Pod.class);
    try {
      List<ResourceQuota> quotas = cluster.quotas(namespace);
      if (!quota.constrains(quotas, mutated)) {
        return Optional.empty();
      }
      GpuQuota.Usage request = quota.requested(mutated);
      Optional<String> over = quota.check(mutated, request, quotas, cluster.pods(namespace));
      return over.map(AdmissionDecision::forbidden);
    } catch (RuntimeException e) {
      log.warn("cannot check GPU quota in namespace {}, admitting: {}", namespace, e.toString());
      warnings.add("hami webhook could not check GPU quota in namespace " + namespace);
      return Optional.empty();
    }
  }

  /** The names of the first other vendor whose device count the container asks for, or null. */
  private @Nullable ResourceNames otherVendor(ContainerResources r) {
    for (ResourceNames n : config.otherVendors()) {
      if (!n.count().isEmpty() && r.has(n.count())) {
        return n;
      }
    }
    return null;
  }

  private String summary(Gpu g) {
    ResourceNames n = g.resources().has(config.names().count()) ? config.names() : null;
    if (n == null) {
      n = otherVendor(g.resources());
    }
    if (n == null) {
      n = config.names();
    }
    StringBuilder sb = new StringBuilder();
    for (String name : List.of(n.count(), n.memory(), n.memoryPercentage(), n.core())) {
      String v = name.isEmpty() ? null : g.resources().get(name);
      if (v != null) {
        sb.append(sb.length() == 0 ? "" : ", ").append(name).append('=').append(v);
      }
    }
    return sb.toString();
  }

  private static List<ContainerRef> containers(PodSpec spec) {
    List<ContainerRef> refs = new ArrayList<>();
    List<Container> init = list(spec.getInitContainers());
    for (int i = 0; i < init.size(); i++) {
      refs.add(new ContainerRef(true, i, nameOf(init.get(i))));
    }
    for (int i = 0; i < spec.getContainers().size(); i++) {
      refs.add(new ContainerRef(false, i, nameOf(spec.getContainers().get(i))));
    }
    return refs;
  }

  private static String nameOf(Container c) {
    return c.getName() == null ? "" : c.getName();
  }

  private static ContainerResources withLimit(ContainerResources r, String name, String value) {
    Map<String, String> limits = new LinkedHashMap<>(r.limits());
    limits.put(name, value);
    return new ContainerResources(limits, r.requests());
  }

  private static boolean isPrivileged(Container c) {
    return c.getSecurityContext() != null
        && Boolean.TRUE.equals(c.getSecurityContext().getPrivileged());
  }

  private static @Nullable String label(Pod pod, String key) {
    if (pod.getMetadata() == null || pod.getMetadata().getLabels() == null) {
      return null;
    }
    return pod.getMetadata().getLabels().get(key);
  }

  private static boolean isEmpty(@Nullable String s) {
    return s == null || s.isEmpty();
  }

  private static <T> List<T> list(@Nullable List<T> l) {
    return l == null ? List.of() : l;
  }
}
