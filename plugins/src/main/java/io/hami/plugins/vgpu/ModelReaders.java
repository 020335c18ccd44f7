package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.framework.api.Quantities;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import io.hami.model.Decoded;
import io.hami.model.ProtocolError;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.PairScore;
import io.hami.model.device.PairScoreJson;
import io.hami.model.handshake.HandshakeCheck;
import io.hami.model.pod.DeviceSelectors;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.MigAllocationJson;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.pod.UsageCollapse;
import io.hami.model.vendor.NodeFacts;
import java.time.InstantSource;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads nodes and pods through the protocol model for {@link DeviceUsageIndex}. */
final class ModelReaders {
  private static final Logger log = LoggerFactory.getLogger(ModelReaders.class);

  private ModelReaders() {}

  /** Node annotations a registration depends on, per vendor plus the shared ones. */
  static Set<String> registrationKeys(List<GpuVendor> vendors) {
    Set<String> keys = new HashSet<>();
    keys.add(Annotations.DEVICE_CORDON);
    keys.add(Annotations.NODE_NVIDIA_SCORE);
    for (GpuVendor v : vendors) {
      keys.add(v.keys().register());
      keys.add(v.keys().handshake());
    }
    // Capacity-registered vendors change with the node status, which is always compared.
    keys.remove("");
    return keys;
  }

  static DeviceUsageIndex.NodeReader nodeReader(
      List<GpuVendor> vendors, InstantSource clock, ZoneId zone) {
    return node -> readNode(node, vendors, clock, zone);
  }

  /** {@code key="value"}, the value shortened as in protocol errors. */
  private static String quoted(String key, String value) {
    return key + "=\"" + ProtocolError.of(key, value, "").value() + "\"";
  }

  static DeviceUsageIndex.Registered readNode(
      Node node, List<GpuVendor> vendors, InstantSource clock, ZoneId zone) {
    Map<String, String> annos = node.getMetadata().getAnnotations();
    if (annos == null) {
      annos = Map.of();
    }
    Set<String> cordon = Set.copyOf(DeviceSelectors.list(annos, Annotations.DEVICE_CORDON));
    PairScores pairs = PairScores.NONE;
    String score = annos.get(Annotations.NODE_NVIDIA_SCORE);
    if (score != null && !score.isBlank()) {
      Decoded<List<PairScore>> d = PairScoreJson.decode(score);
      if (d instanceof Decoded.Err<List<PairScore>> e) {
        return DeviceUsageIndex.Registered.invalid(
            "NVIDIA",
            field(Annotations.NODE_NVIDIA_SCORE, e.error()),
            quoted(Annotations.NODE_NVIDIA_SCORE, score) + ": " + e.error());
      }
      pairs = pairScores(d.orElse(List.of()));
    }
    ImmutableList.Builder<DeviceUsage> out = ImmutableList.builder();
    NodeFacts facts = null;
    for (GpuVendor v : vendors) {
      if (!v.capacityRegistered() && !annos.containsKey(v.keys().register())) {
        continue;
      }
      if (v.capacityRegistered()
          && (node.getStatus() == null
              || node.getStatus().getCapacity() == null
              || !node.getStatus().getCapacity().containsKey(v.names().core()))) {
        continue;
      }
      if (facts == null) {
        facts = NodeFacts.of(node);
      }
      Decoded<List<NodeDevice>> decoded = v.devices(facts);
      if (decoded instanceof Decoded.Err<List<NodeDevice>> e) {
        String key = v.capacityRegistered() ? "status.capacity" : v.keys().register();
        String shown = v.capacityRegistered() ? key : quoted(key, annos.getOrDefault(key, ""));
        return DeviceUsageIndex.Registered.invalid(
            v.word(), field(key, e.error()), shown + ": " + e.error());
      }
      List<NodeDevice> devices = decoded.orElse(List.of());
      if (devices.isEmpty()) {
        continue;
      }
      long allocatable = allocatable(node, v.names().count());
      boolean nodeHealthy =
          HandshakeCheck.check(
                      Optional.ofNullable(
                          v.keys().handshake().isEmpty() ? null : annos.get(v.keys().handshake())),
                      LocalDateTime.ofInstant(clock.instant(), zone),
                      Math.max(allocatable, 0))
                  .healthy()
              // A device plugin that left kubelet (allocatable 0) cannot admit pods.
              && allocatable != 0;
      for (NodeDevice d : devices) {
        out.add(usage(d, v, d.health() && nodeHealthy, cordon.contains(d.id())));
      }
    }
    return new DeviceUsageIndex.Registered(out.build(), pairs, null);
  }

  private static PairScores pairScores(List<PairScore> scores) {
    Map<String, Map<String, Integer>> m = new HashMap<>();
    for (PairScore p : scores) {
      m.put(p.uuid(), p.score());
    }
    return PairScores.of(m);
  }

  /** A registered device, nothing used yet. */
  private static DeviceUsage usage(NodeDevice d, GpuVendor v, boolean healthy, boolean cordoned) {
    return new DeviceUsage(
        d.id(),
        d.index(),
        v.word(),
        d.type(),
        d.numa(),
        d.mode().isEmpty() ? NodeDevice.MODE_HAMI_CORE : d.mode(),
        healthy,
        cordoned,
        d.count(),
        0,
        d.devmem(),
        0,
        d.devcore(),
        0,
        d.migProfiles(),
        List.of());
  }

  /**
   * The metric label of a decode error: the annotation key and the field path inside it, list
   * indices dropped so that the label set stays small ({@code
   * hami.io/node-nvidia-register.devmem}).
   */
  static String field(String key, ProtocolError e) {
    String f = e.field().replaceAll("\\[\\d+\\]", "");
    if (f.startsWith(".")) {
      f = f.substring(1);
    }
    if (f.startsWith(key)) {
      f = f.substring(key.length());
      if (f.startsWith(".")) {
        f = f.substring(1);
      }
    }
    return f.isEmpty() ? key : key + "." + f;
  }

  /** The node's allocatable count of {@code resource}; -1 when not reported. */
  static long allocatable(Node node, String resource) {
    if (node.getStatus() == null || node.getStatus().getAllocatable() == null) {
      return -1;
    }
    Quantity q = node.getStatus().getAllocatable().get(resource);
    if (q == null) {
      return -1;
    }
    try {
      return Quantities.toLongTruncated(q);
    } catch (ArithmeticException | IllegalArgumentException e) {
      return -1;
    }
  }

  /**
   * Told about an allocation annotation that cannot be decoded; the pod's devices there are not
   * counted.
   */
  @FunctionalInterface
  interface UnreadableAllocation {
    UnreadableAllocation IGNORE = (pod, key, value, error) -> {};

    void unreadable(Pod pod, String key, String value, String error);
  }

  static DeviceUsageIndex.PodReader podReader(List<GpuVendor> vendors) {
    return podReader(vendors, UnreadableAllocation.IGNORE);
  }

  static DeviceUsageIndex.PodReader podReader(
      List<GpuVendor> vendors, UnreadableAllocation unreadable) {
    return pod -> readPod(pod, vendors, unreadable);
  }

  static DeviceUsageIndex.@Nullable Held readPod(Pod pod, List<GpuVendor> vendors) {
    return readPod(pod, vendors, UnreadableAllocation.IGNORE);
  }

  /** What a pod holds according to its allocation annotations (protocol §6.5). */
  static DeviceUsageIndex.@Nullable Held readPod(
      Pod pod, List<GpuVendor> vendors, UnreadableAllocation unreadable) {
    Map<String, String> annos = pod.getMetadata().getAnnotations();
    if (annos == null) {
      return null;
    }
    String node = annos.get(Annotations.VGPU_NODE);
    if (node == null || node.isEmpty()) {
      return null;
    }
    if (PodPhases.isTerminal(pod)) {
      return null;
    }
    Map<String, PodUsage.Usage> usage = new LinkedHashMap<>();
    for (GpuVendor v : vendors) {
      String allocated = annos.get(v.keys().allocated());
      if (allocated == null || allocated.isEmpty()) {
        continue;
      }
      Decoded<PodDevices> d = PodDevicesCodec.decode(allocated);
      if (d instanceof Decoded.Err<PodDevices> e) {
        log.debug(
            "unreadable allocation annotation pod={}/{} key={} error={}",
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(),
            v.keys().allocated(),
            e.error());
        unreadable.unreadable(pod, v.keys().allocated(), allocated, e.error().toString());
        continue;
      }
      PodDevices devices = d.orElse(PodDevices.empty());
      int init = initContainers(pod, devices, v);
      PodUsage.of(UsageCollapse.collapse(devices, init, initDone(pod)), v.word())
          .byDevice()
          .forEach((id, u) -> usage.merge(id, u, PodUsage.Usage::plus));
    }
    PodUsage held =
        new PodUsage(ImmutableMap.copyOf(usage)).withMig(migPlacements(pod, annos, unreadable));
    if (held.isEmpty()) {
      return null;
    }
    return new DeviceUsageIndex.Held(node, held);
  }

  /**
   * The dynamic MIG placements a pod holds, per parent GPU, each placement once (protocol §8.3).
   */
  static Map<String, List<MigPlacement>> migPlacements(
      Pod pod, Map<String, String> annos, UnreadableAllocation unreadable) {
    String json = annos.get(Annotations.VGPU_MIG_ALLOCATIONS);
    if (json == null || json.isEmpty()) {
      return Map.of();
    }
    Decoded<List<MigAllocation>> d = MigAllocationJson.decode(json);
    if (d instanceof Decoded.Err<List<MigAllocation>> e) {
      unreadable.unreadable(pod, Annotations.VGPU_MIG_ALLOCATIONS, json, e.error().toString());
      return Map.of();
    }
    Map<String, List<MigPlacement>> out = new LinkedHashMap<>();
    for (MigAllocation a : d.orElse(List.of())) {
      List<MigPlacement> at = out.computeIfAbsent(a.gpuUuid(), k -> new ArrayList<>());
      if (!at.contains(a.placement())) {
        at.add(a.placement());
      }
    }
    return out;
  }

  /**
   * How many leading annotation entries belong to init containers. A writer that left out the empty
   * entries of containers without devices (v2.10, protocol §11 trap 4) shifts the entries; when
   * init containers ask for no device, every entry is then an app container's.
   */
  static int initContainers(Pod pod, PodDevices devices, GpuVendor v) {
    List<Container> inits = pod.getSpec() == null ? null : pod.getSpec().getInitContainers();
    int init = inits == null ? 0 : inits.size();
    int apps =
        pod.getSpec() == null || pod.getSpec().getContainers() == null
            ? 0
            : pod.getSpec().getContainers().size();
    int entries = devices.size();
    if (entries > 0 && devices.container(entries - 1).isEmpty()) {
      entries--; // the empty entry after the final ';'
    }
    if (inits == null || init == 0 || entries >= init + apps) {
      return init;
    }
    String count = v.names().count();
    for (Container c : inits) {
      if (c.getResources() != null
          && ((c.getResources().getLimits() != null
                  && c.getResources().getLimits().containsKey(count))
              || (c.getResources().getRequests() != null
                  && c.getResources().getRequests().containsKey(count)))) {
        return init;
      }
    }
    return 0;
  }

  /** Whether every init container has terminated with exit code 0. */
  static boolean initDone(Pod pod) {
    List<Container> inits = pod.getSpec() == null ? null : pod.getSpec().getInitContainers();
    if (inits == null || inits.isEmpty() || pod.getStatus() == null) {
      return false;
    }
    List<ContainerStatus> st = pod.getStatus().getInitContainerStatuses();
    if (st == null || st.size() < inits.size()) {
      return false;
    }
    for (ContainerStatus s : st) {
      if (s.getState() == null
          || s.getState().getTerminated() == null
          || s.getState().getTerminated().getExitCode() == null
          || s.getState().getTerminated().getExitCode() != 0) {
        return false;
      }
    }
    return true;
  }
}
