package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.model.Annotations;
import io.hami.model.Decoded;
import io.hami.model.pod.DeviceSelectors;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Reads what a pod asks of the vGPU plugin: each container's requests for every vendor (protocol
 * §5.2) and the placement options of its annotations (device selection, policies, weights).
 * Thread-safe; PreFilter calls it once per scheduling attempt.
 */
final class PodRequestReader {

  private static final String NVIDIA = "NVIDIA";

  private static final ImmutableSet<String> GO_BOOLS =
      ImmutableSet.of(
          "1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False");

  /** A pod annotation or resource that cannot be used; the message names it. */
  static final class InvalidPodException extends Exception {
    private static final long serialVersionUID = 1L;
    final String reason;

    InvalidPodException(String message) {
      super(message);
      this.reason = message;
    }
  }

  private final ImmutableList<GpuVendor> vendors;
  private final boolean exclusiveWholeCards;
  private final NodePolicy defaultNodePolicy;
  private final GpuPolicy defaultGpuPolicy;
  // Policies are parsed once per distinct annotation value, not once per pod.
  private final Map<String, GpuPolicy> policies = new ConcurrentHashMap<>();
  private final PodAnnotationWarnings warnings;

  PodRequestReader(VgpuArgs args, PodAnnotationWarnings warnings) {
    this.vendors = args.vendors();
    this.exclusiveWholeCards = args.exclusiveWholeCards();
    this.defaultNodePolicy = NodePolicy.parse(args.nodeSchedulerPolicy());
    this.defaultGpuPolicy = GpuPolicy.parse(args.gpuSchedulerPolicy());
    this.warnings = warnings;
  }

  /** The pod's requests and options, or null when it asks for no device. */
  @Nullable PodDeviceRequests requestsOf(Pod pod) throws InvalidPodException {
    List<Container> inits =
        pod.getSpec() == null || pod.getSpec().getInitContainers() == null
            ? List.of()
            : pod.getSpec().getInitContainers();
    List<Container> apps =
        pod.getSpec() == null || pod.getSpec().getContainers() == null
            ? List.of()
            : pod.getSpec().getContainers();
    List<List<VendorRequest>> containers = new ArrayList<>(inits.size() + apps.size());
    boolean any = false;
    for (Container c : inits) {
      List<VendorRequest> rs = containerRequests(c);
      any |= !rs.isEmpty();
      containers.add(rs);
    }
    for (Container c : apps) {
      List<VendorRequest> rs = containerRequests(c);
      any |= !rs.isEmpty();
      containers.add(rs);
    }
    if (!any) {
      return null;
    }
    return new PodDeviceRequests(PodRequests.of(containers, inits.size()), optionsOf(pod));
  }

  private List<VendorRequest> containerRequests(Container c) throws InvalidPodException {
    ContainerResources res = ContainerResources.of(c);
    List<VendorRequest> out = new ArrayList<>(1);
    for (GpuVendor v : vendors) {
      Decoded<ContainerRequest> d = v.request(res);
      if (d instanceof Decoded.Err<ContainerRequest> e) {
        throw new InvalidPodException("container " + c.getName() + ": " + e.error());
      }
      ContainerRequest r = d.orElse(ContainerRequest.none(v.word()));
      if (r.isEmpty()) {
        continue;
      }
      int cores = r.coresreq();
      if (exclusiveWholeCards && cores == 0 && v.wantsExclusiveCores(res)) {
        cores = 100;
      }
      out.add(new VendorRequest(v.word(), r.nums(), r.memreq(), r.memPercentage(), cores));
    }
    return out;
  }

  /** The pod's placement options; defaults for what its annotations do not set. */
  PodGpuOptions optionsOf(Pod pod) throws InvalidPodException {
    Map<String, String> annos = pod.getMetadata().getAnnotations();
    if (annos == null || annos.isEmpty()) {
      return new PodGpuOptions(
          DeviceFilter.NONE, defaultGpuPolicy, defaultNodePolicy, ScoringWeights.DEFAULT, false);
    }
    String np = annos.get(Annotations.NODE_SCHEDULER_POLICY);
    String gp = annos.get(Annotations.GPU_SCHEDULER_POLICY);
    ScoringWeights weights = weightsOf(annos);
    DeviceFilter filter = filterOf(annos);
    GpuPolicy gpuPolicy =
        gp == null || gp.isBlank()
            ? defaultGpuPolicy
            : policies.computeIfAbsent(gp, GpuPolicy::parse);
    NodePolicy nodePolicy = np == null || np.isBlank() ? defaultNodePolicy : NodePolicy.parse(np);
    warnUnusable(pod, gp, np, annos.get(Annotations.NVIDIA_NUMA_BIND), nodePolicy);
    return new PodGpuOptions(
        filter,
        gpuPolicy,
        nodePolicy,
        weights,
        DeviceSelectors.flag(annos, Annotations.NVIDIA_NUMA_BIND));
  }

  private static ScoringWeights weightsOf(Map<String, String> annos) throws InvalidPodException {
    String w = annos.get(Annotations.DEVICE_SCORING_WEIGHTS);
    if (w == null) {
      return ScoringWeights.DEFAULT;
    }
    try {
      return ScoringWeights.parse(w);
    } catch (IllegalArgumentException e) {
      throw new InvalidPodException(
          Annotations.DEVICE_SCORING_WEIGHTS + "=\"" + w + "\": " + e.getMessage());
    }
  }

  private DeviceFilter filterOf(Map<String, String> annos) {
    DeviceFilter filter =
        DeviceFilter.of(
            annos.get(Annotations.NVIDIA_USE_GPUTYPE),
            annos.get(Annotations.NVIDIA_NOUSE_GPUTYPE),
            annos.get(Annotations.NVIDIA_USE_GPUUUID),
            annos.get(Annotations.NVIDIA_NOUSE_GPUUUID),
            annos.get(Annotations.NVIDIA_VGPU_MODE));
    // Every other vendor has its own selection annotations (protocol §2.3).
    Map<String, DeviceFilter> others = null;
    for (GpuVendor v : vendors) {
      if (v.word().equals(NVIDIA)) {
        continue;
      }
      DeviceFilter f =
          DeviceFilter.of(
              get(annos, v.keys().useType()),
              get(annos, v.keys().noUseType()),
              get(annos, v.keys().useUuid()),
              get(annos, v.keys().noUseUuid()),
              null);
      if (!f.isEmpty()) {
        if (others == null) {
          others = new HashMap<>();
        }
        others.put(v.word(), f);
      }
    }
    return others == null ? filter : filter.withVendors(others);
  }

  /**
   * Reports option annotations whose value HAMi reads leniently (an unknown policy sorts as spread
   * or binpack, a non-boolean numa-bind is false): the pod is placed as HAMi would place it, and
   * its owner learns that the value was not understood.
   */
  private void warnUnusable(
      Pod pod,
      @Nullable String gp,
      @Nullable String np,
      @Nullable String numaBind,
      NodePolicy nodePolicy) {
    if (gp != null && !gp.isBlank()) {
      List<String> unknown = GpuPolicy.unknownItems(gp);
      if (!unknown.isEmpty()) {
        warnings.warn(
            pod,
            Annotations.GPU_SCHEDULER_POLICY,
            gp,
            "unknown policy "
                + unknown.stream().map(u -> "\"" + u + "\"").collect(Collectors.joining(", "))
                + " (known: binpack, spread, topology-aware, mutex, numa, or a comma chain of them)",
            gp.contains(",") ? "unknown items are ignored" : "devices are ordered as spread");
      }
    }
    if (np != null && !np.isBlank() && !NodePolicy.isKnown(np)) {
      warnings.warn(
          pod,
          Annotations.NODE_SCHEDULER_POLICY,
          np,
          "unknown policy (known: binpack, spread)",
          "nodes are ranked as " + nodePolicy.wireName());
    }
    if (numaBind != null && !numaBind.isBlank() && !GO_BOOLS.contains(numaBind.trim())) {
      warnings.warn(
          pod,
          Annotations.NVIDIA_NUMA_BIND,
          numaBind,
          "not a boolean (true or false)",
          "NUMA binding is off");
    }
  }

  private static @Nullable String get(Map<String, String> annos, String key) {
    return key.isEmpty() ? null : annos.get(key);
  }
}
