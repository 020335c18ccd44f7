package io.hami.plugins.conformance;

import com.google.common.collect.ImmutableList;
import io.hami.model.Annotations;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import io.hami.model.pod.DeviceSelectors;
import io.hami.plugins.vgpu.DeviceFilter;
import io.hami.plugins.vgpu.DevicePick;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.GpuPolicy;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.NodePolicy;
import io.hami.plugins.vgpu.PairScores;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.ScoringWeights;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Reads HAMi's Go values, as the recorded placement answers carry them (Go field names: {@code
 * Totalmem}, {@code Usedcores}, {@code MigProfiles}, ...), into the vGPU plugin's types.
 */
final class GoDevices {
  private static final String NVIDIA = "NVIDIA";

  private GoDevices() {}

  /**
   * The vendor a device belongs to: NVIDIA for every model string naming it (HAMi matches the
   * request type as a substring of the model), else the model string itself.
   */
  static String vendorOf(String type) {
    return type.toLowerCase(Locale.ROOT).contains("nvidia") ? NVIDIA : type;
  }

  /** A Go {@code device.DeviceUsage}. */
  static DeviceUsage device(JsonNode d) {
    return device(d, Set.of());
  }

  /** A Go {@code device.DeviceUsage}, cordoned when its UUID is in {@code cordon}. */
  static DeviceUsage device(JsonNode d, Set<String> cordon) {
    String type = d.path("Type").asString("");
    List<MigProfile> profiles = new ArrayList<>();
    for (JsonNode p : d.path("MigProfiles")) {
      List<MigPlacement> at = new ArrayList<>();
      for (JsonNode x : p.path("Placements")) {
        at.add(placement(x));
      }
      profiles.add(
          new MigProfile(
              p.path("Name").asString(""),
              p.path("MemoryMB").asInt(),
              p.path("Core").asInt(),
              p.path("SliceCount").asInt(),
              p.path("InstanceCount").asInt(),
              at));
    }
    List<MigPlacement> held = new ArrayList<>();
    for (JsonNode a : d.path("MigAllocationsInUse")) {
      held.add(placement(a.path("Placement")));
    }
    return new DeviceUsage(
        d.path("ID").asString(""),
        d.path("Index").asInt(),
        vendorOf(type),
        type,
        d.path("Numa").asInt(),
        d.path("Mode").asString(""),
        d.path("Health").asBoolean(),
        cordon.contains(d.path("ID").asString("")),
        d.path("Count").asInt(),
        d.path("Used").asInt(),
        d.path("Totalmem").asInt(),
        d.path("Usedmem").asInt(),
        d.path("Totalcore").asInt(),
        d.path("Usedcores").asInt(),
        profiles,
        held);
  }

  private static MigPlacement placement(JsonNode p) {
    return new MigPlacement(p.path("Start").asInt(), p.path("Size").asInt());
  }

  /** A Go {@code []*device.DeviceUsage} on a node described by a Go {@code device.NodeInfo}. */
  static List<DeviceUsage> devices(JsonNode array, JsonNode nodeInfo) {
    Set<String> cordon = cordoned(nodeInfo);
    List<DeviceUsage> out = new ArrayList<>();
    for (JsonNode d : array) {
      out.add(device(d, cordon));
    }
    return out;
  }

  /** The devices of a Go {@code policy.DeviceUsageList}, in its order. */
  static List<DeviceUsage> deviceList(JsonNode usageList) {
    return deviceList(usageList, Set.of());
  }

  private static List<DeviceUsage> deviceList(JsonNode usageList, Set<String> cordon) {
    List<DeviceUsage> out = new ArrayList<>();
    for (JsonNode s : usageList.path("DeviceLists")) {
      out.add(device(s.path("Device"), cordon));
    }
    return out;
  }

  /**
   * A Go {@code NodeUsage} as a node view: its devices in list order, cordoned as its node's {@code
   * hami.io/device-cordon} says, and its pair scores.
   */
  static NodeDevices node(String name, JsonNode nodeUsage, JsonNode nodeInfo) {
    return new NodeDevices(
        name,
        ImmutableList.copyOf(deviceList(nodeUsage.path("Devices"), cordoned(nodeInfo))),
        pairs(nodeInfo),
        null,
        0);
  }

  /** The devices a Go {@code device.NodeInfo}'s node cordons ({@code hami.io/device-cordon}). */
  static Set<String> cordoned(JsonNode nodeInfo) {
    return Set.copyOf(
        DeviceSelectors.list(
            stringMap(nodeInfo.path("Node").path("metadata").path("annotations")),
            Annotations.DEVICE_CORDON));
  }

  /** The topology pair scores of a Go {@code device.NodeInfo}. */
  static PairScores pairs(JsonNode nodeInfo) {
    Map<String, Map<String, Integer>> byUuid = new HashMap<>();
    for (JsonNode ofVendor : nodeInfo.path("Devices")) {
      for (JsonNode d : ofVendor) {
        JsonNode pair = d.path("DevicePairScore");
        // The scores belong to the device that carries them, whatever ID the pair repeats.
        String id = d.path("ID").asString("");
        Map<String, Integer> scores = new HashMap<>();
        for (Map.Entry<String, JsonNode> e : pair.path("Scores").properties()) {
          scores.put(e.getKey(), e.getValue().asInt());
        }
        if (!scores.isEmpty()) {
          byUuid.put(id.isEmpty() ? pair.path("ID").asString("") : id, scores);
        }
      }
    }
    return PairScores.of(byUuid);
  }

  /** A Go {@code device.ContainerDeviceRequest}. */
  static VendorRequest request(JsonNode r) {
    return new VendorRequest(
        r.path("Type").asString(""),
        r.path("Nums").asInt(),
        r.path("Memreq").asInt(),
        r.path("MemPercentagereq").asInt(),
        r.path("Coresreq").asInt());
  }

  /** A Go {@code device.ContainerDeviceRequests} (type to request), in recorded key order. */
  static List<VendorRequest> requests(JsonNode byType) {
    List<VendorRequest> out = new ArrayList<>();
    for (JsonNode r : byType) {
      out.add(request(r));
    }
    return out;
  }

  /** A Go {@code util.DeviceScoringWeights}. */
  static ScoringWeights weights(JsonNode w) {
    return new ScoringWeights(
        w.path("Slot").asInt(), w.path("Core").asInt(), w.path("Memory").asInt());
  }

  /** The annotations of a pod in its API JSON. */
  static Map<String, String> annotations(JsonNode pod) {
    return stringMap(pod.path("metadata").path("annotations"));
  }

  /** A Go {@code map[string]string}. */
  static Map<String, String> stringMap(JsonNode m) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : m.properties()) {
      out.put(e.getKey(), e.getValue().asString(""));
    }
    return out;
  }

  /**
   * The placement options HAMi reads from a pod's annotations, with {@code defaultPolicy} as the
   * GPU policy where the pod names none.
   */
  static PodGpuOptions options(Map<String, String> annos, String defaultPolicy) {
    String gp = annos.get(Annotations.GPU_SCHEDULER_POLICY);
    String np = annos.get(Annotations.NODE_SCHEDULER_POLICY);
    String w = annos.get(Annotations.DEVICE_SCORING_WEIGHTS);
    return new PodGpuOptions(
        DeviceFilter.of(
            annos.get(Annotations.NVIDIA_USE_GPUTYPE),
            annos.get(Annotations.NVIDIA_NOUSE_GPUTYPE),
            annos.get(Annotations.NVIDIA_USE_GPUUUID),
            annos.get(Annotations.NVIDIA_NOUSE_GPUUUID),
            annos.get(Annotations.NVIDIA_VGPU_MODE)),
        GpuPolicy.parse(gp == null || gp.isBlank() ? defaultPolicy : gp),
        np == null || np.isBlank() ? NodePolicy.BINPACK : NodePolicy.parse(np),
        w == null ? ScoringWeights.DEFAULT : ScoringWeights.parse(w),
        DeviceSelectors.flag(annos, Annotations.NVIDIA_NUMA_BIND));
  }

  /** The UUIDs of a Go {@code device.ContainerDevices}, in order. */
  static List<String> uuids(JsonNode containerDevices) {
    List<String> out = new ArrayList<>();
    for (JsonNode d : containerDevices) {
      out.add(d.path("UUID").asString(""));
    }
    return out;
  }

  /** A container's picks as {@code uuid/mem/cores}, the form compared with HAMi's. */
  static List<String> picks(List<DevicePick> picks) {
    List<String> out = new ArrayList<>();
    for (DevicePick p : picks) {
      out.add(p.id() + "/" + p.memMiB() + "/" + p.cores());
    }
    return out;
  }

  /** A Go {@code device.ContainerDevices} in the form of {@link #picks(List)}. */
  static List<String> goPicks(JsonNode containerDevices) {
    List<String> out = new ArrayList<>();
    for (JsonNode d : containerDevices) {
      out.add(
          d.path("UUID").asString("")
              + "/"
              + d.path("Usedmem").asInt()
              + "/"
              + d.path("Usedcores").asInt());
    }
    return out;
  }

  private static boolean nonEmpty(JsonNode n) {
    return !n.isMissingNode() && !n.isNull() && !n.isEmpty();
  }
}
