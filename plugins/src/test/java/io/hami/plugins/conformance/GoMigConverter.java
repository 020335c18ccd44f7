package io.hami.plugins.conformance;

import io.hami.model.Annotations;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import io.hami.model.pod.DeviceSelectors;
import io.hami.plugins.vgpu.DeviceFilter;
import io.hami.plugins.vgpu.DevicePick;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.GpuPolicy;
import io.hami.plugins.vgpu.PairScores;
import io.hami.plugins.vgpu.ScoringWeights;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Reads the Go values of HAMi's recorded scheduler calls (Go field names) into the plugin's types,
 * with the dynamic MIG fields ({@code Mode}, {@code MigProfiles}, {@code MigAllocationsInUse},
 * {@code MigTemplate}) and the MIG parts of the answers ({@code CustomInfo.migProfile} and {@code
 * migPlacement}).
 */
final class GoMigConverter {
  private static final String NVIDIA = "NVIDIA";

  private GoMigConverter() {}

  /** Whether any of the Go devices is in MIG mode or carries MIG profiles or templates. */
  static boolean anyMig(Iterable<JsonNode> goDevices) {
    for (JsonNode d : goDevices) {
      if ("mig".equals(str(d.path("Mode")))
          || d.path("MigProfiles").size() > 0
          || d.path("MigTemplate").size() > 0) {
        return true;
      }
    }
    return false;
  }

  /** A Go {@code DeviceUsage} as ours; {@code cordoned} lists the node's cordoned device ids. */
  static DeviceUsage device(JsonNode d, Set<String> cordoned) {
    String id = str(d.path("ID"));
    String type = str(d.path("Type"));
    List<MigProfile> profiles = new ArrayList<>();
    for (JsonNode p : d.path("MigProfiles")) {
      profiles.add(
          new MigProfile(
              str(p.path("Name")),
              p.path("MemoryMB").asInt(),
              p.path("Core").asInt(),
              p.path("SliceCount").asInt(),
              p.path("InstanceCount").asInt(),
              placements(p.path("Placements"))));
    }
    List<MigPlacement> used = new ArrayList<>();
    for (JsonNode a : d.path("MigAllocationsInUse")) {
      used.add(placement(a.path("Placement")));
    }
    // HAMi hands the NVIDIA fit only devices whose type names NVIDIA.
    String vendor = type.toLowerCase(Locale.ROOT).contains("nvidia") ? NVIDIA : type;
    return new DeviceUsage(
        id,
        d.path("Index").asInt(),
        vendor,
        type,
        d.path("Numa").asInt(),
        str(d.path("Mode")),
        d.path("Health").asBoolean(),
        cordoned.contains(id),
        d.path("Count").asInt(),
        d.path("Used").asInt(),
        d.path("Totalmem").asInt(),
        d.path("Usedmem").asInt(),
        d.path("Totalcore").asInt(),
        d.path("Usedcores").asInt(),
        profiles,
        used);
  }

  /** Every Go device of a list, in order. */
  static List<DeviceUsage> devices(JsonNode goDevices, Set<String> cordoned) {
    List<DeviceUsage> out = new ArrayList<>();
    for (JsonNode d : goDevices) {
      out.add(device(d, cordoned));
    }
    return out;
  }

  /** The device ids a Kubernetes node's {@code hami.io/device-cordon} annotation lists. */
  static Set<String> cordoned(JsonNode k8sNode) {
    String v = str(k8sNode.path("metadata").path("annotations").path(Annotations.DEVICE_CORDON));
    Set<String> out = new HashSet<>();
    if (v != null) {
      for (String s : v.split(",")) {
        if (!s.isBlank()) {
          out.add(s.trim());
        }
      }
    }
    return out;
  }

  /** A Go {@code ContainerDeviceRequest} of the NVIDIA vendor. */
  static VendorRequest request(JsonNode r) {
    return new VendorRequest(
        NVIDIA,
        r.path("Nums").asInt(),
        Math.max(0, r.path("Memreq").asInt()),
        r.path("MemPercentagereq").asInt(),
        Math.max(0, r.path("Coresreq").asInt()));
  }

  /** The pod annotations as a map (a Go nil map is empty). */
  static Map<String, String> annotations(JsonNode annos) {
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : annos.properties()) {
      String v = str(e.getValue());
      if (v != null) {
        out.put(e.getKey(), v);
      }
    }
    return out;
  }

  static DeviceFilter filter(Map<String, String> annos) {
    return DeviceFilter.of(
        annos.get(Annotations.NVIDIA_USE_GPUTYPE),
        annos.get(Annotations.NVIDIA_NOUSE_GPUTYPE),
        annos.get(Annotations.NVIDIA_USE_GPUUUID),
        annos.get(Annotations.NVIDIA_NOUSE_GPUUUID),
        annos.get(Annotations.NVIDIA_VGPU_MODE));
  }

  /** HAMi's {@code GetGPUSchedulerPolicyByPod}: the pod's annotation, else the default. */
  static GpuPolicy policy(Map<String, String> annos, String defaultPolicy) {
    String v = annos.get(Annotations.GPU_SCHEDULER_POLICY);
    return GpuPolicy.parse(v != null ? v : defaultPolicy);
  }

  static boolean numaBind(Map<String, String> annos) {
    return DeviceSelectors.flag(annos, Annotations.NVIDIA_NUMA_BIND);
  }

  static ScoringWeights weights(JsonNode w) {
    return w.isMissingNode() || w.isNull()
        ? ScoringWeights.DEFAULT
        : new ScoringWeights(
            w.path("Slot").asInt(), w.path("Core").asInt(), w.path("Memory").asInt());
  }

  /** The pair scores of a Go {@code NodeInfo}'s NVIDIA devices. */
  static PairScores pairs(JsonNode nodeInfo) {
    Map<String, Map<String, Integer>> byUuid = new HashMap<>();
    for (JsonNode d : nodeInfo.path("Devices").path(NVIDIA)) {
      JsonNode ps = d.path("DevicePairScore");
      Map<String, Integer> scores = new HashMap<>();
      for (Map.Entry<String, JsonNode> e : ps.path("Scores").properties()) {
        scores.put(e.getKey(), e.getValue().asInt());
      }
      String id = str(ps.path("ID"));
      byUuid.put(id == null ? str(d.path("ID")) : id, scores);
    }
    return PairScores.of(byUuid);
  }

  /**
   * One device of an answer in a comparable form: {@code uuid}, plus {@code mem/cores} and the MIG
   * instance when {@code detailed}.
   */
  static String answer(JsonNode containerDevice, boolean detailed) {
    String s = str(containerDevice.path("UUID"));
    if (!detailed) {
      return s;
    }
    s +=
        " "
            + containerDevice.path("Usedmem").asInt()
            + "/"
            + containerDevice.path("Usedcores").asInt();
    JsonNode info = containerDevice.path("CustomInfo");
    String profile = str(info.path("migProfile"));
    if (profile != null) {
      MigPlacement at = placement(info.path("migPlacement"));
      s += " " + profile + "@" + at.start() + "+" + at.size();
    }
    return s;
  }

  /** Our pick in the form of {@link #answer}. */
  static String answer(DevicePick p, boolean detailed) {
    if (!detailed) {
      return p.id();
    }
    String s = p.id() + " " + p.memMiB() + "/" + p.cores();
    if (p.mig() != null) {
      s +=
          " "
              + p.mig().profile()
              + "@"
              + p.mig().placement().start()
              + "+"
              + p.mig().placement().size();
    }
    return s;
  }

  private static List<MigPlacement> placements(JsonNode ps) {
    List<MigPlacement> out = new ArrayList<>();
    for (JsonNode p : ps) {
      out.add(placement(p));
    }
    return out;
  }

  private static MigPlacement placement(JsonNode p) {
    return new MigPlacement(p.path("Start").asInt(), p.path("Size").asInt());
  }

  static @Nullable String str(JsonNode n) {
    return n.isMissingNode() || n.isNull() ? null : n.asString();
  }
}
