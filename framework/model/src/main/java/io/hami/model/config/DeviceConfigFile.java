package io.hami.model.config;

import com.google.common.collect.ImmutableSet;
import io.hami.model.ProtocolError;
import io.hami.model.resource.ResourceNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Parses {@code device-config.yaml}: applies the chart defaults, then validates every field and
 * reports all problems at once, each with its path (e.g. {@code nvidia.deviceSplitCount}, {@code
 * iluvatars[1].commonWord}) and value. Keys match case-insensitively; unknown keys become warnings.
 */
public final class DeviceConfigFile {

  /** Files larger than this are rejected unread. */
  public static final int MAX_BYTES = 256 << 10;

  /** Sections of vendors this model does not cover; accepted without warnings. */
  private static final ImmutableSet<String> OTHER_SECTIONS =
      ImmutableSet.of(
          "metax",
          "mthreads",
          "enflame",
          "kunlun",
          "awsneuron",
          "amd",
          "vastai",
          "biren",
          "iluvatar");

  private static final YAMLMapper YAML =
      YAMLMapper.builder(
              YAMLFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(32)
                          .maxNumberLength(64)
                          .maxDocumentLength(MAX_BYTES)
                          .build())
                  .build())
          .build();

  private DeviceConfigFile() {}

  /** Reads and parses a file. */
  public static Validated<DeviceConfig> load(Path file) {
    try {
      if (Files.size(file) > MAX_BYTES) {
        return invalid(
            "", file.toString(), "device config file is larger than " + MAX_BYTES + " bytes");
      }
      return parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      return invalid("", file.toString(), "cannot read device config file: " + e.getMessage());
    }
  }

  /** Parses YAML text; an empty document gives {@link DeviceConfig#DEFAULTS}. */
  public static Validated<DeviceConfig> parse(String yaml) {
    if (yaml.length() > MAX_BYTES) {
      return invalid("", "", "device config is larger than " + MAX_BYTES + " characters");
    }
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JacksonException | IllegalArgumentException | IllegalStateException e) {
      String m =
          e.getMessage() == null
              ? e.getClass().getSimpleName()
              : e.getMessage().lines().findFirst().orElse("");
      return invalid("", "", "invalid YAML: " + m);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return new Validated.Valid<>(DeviceConfig.DEFAULTS, List.of());
    }
    if (!root.isObject()) {
      return invalid("", ConfigNode.text(root), "device config must be a mapping");
    }
    List<ProtocolError> errors = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    ConfigNode top = new ConfigNode(root, "", errors, warnings);
    NvidiaConfig nvidia = nvidia(top.object("nvidia"));
    CambriconConfig cambricon = cambricon(top.object("cambricon"));
    HygonConfig hygon = hygon(top.object("hygon"));
    List<IluvatarConfig> iluvatars = iluvatars(top);
    AscendConfig vnpus = vnpus(top.object("vnpus"));
    for (String other : OTHER_SECTIONS) {
      top.ignore(other);
    }
    top.finish();
    if (!errors.isEmpty()) {
      return new Validated.Invalid<>(errors);
    }
    return new Validated.Valid<>(
        new DeviceConfig(nvidia, cambricon, hygon, iluvatars, vnpus), warnings);
  }

  private static <T> Validated<T> invalid(String field, String value, String message) {
    return new Validated.Invalid<>(List.of(ProtocolError.of(field, value, message)));
  }

  private static NvidiaConfig nvidia(@Nullable ConfigNode n) {
    if (n == null) {
      return NvidiaConfig.DEFAULTS;
    }
    NvidiaConfig d = NvidiaConfig.DEFAULTS;
    ResourceNames dn = d.resourceNames();
    ResourceNames names =
        new ResourceNames(
            n.resourceName("resourceCountName", dn.count()),
            n.resourceName("resourceMemoryName", dn.memory()),
            n.resourceName("resourceMemoryPercentageName", dn.memoryPercentage()),
            n.resourceName("resourceCoreName", dn.core()),
            n.resourceName("resourcePriorityName", dn.priority()));
    distinct(n, names);
    boolean overwriteEnv = n.bool("overwriteEnv", d.overwriteEnv());
    int defaultMemory = (int) n.integer("defaultMemory", d.defaultMemory(), 0, Integer.MAX_VALUE);
    int defaultCores = (int) n.integer("defaultCores", d.defaultCores(), 0, 100);
    int defaultGpuNum = (int) n.integer("defaultGPUNum", d.defaultGpuNum(), 0, Integer.MAX_VALUE);
    int memoryFactor = (int) n.integer("memoryFactor", d.memoryFactor(), 1, Integer.MAX_VALUE);
    int split = (int) n.integer("deviceSplitCount", d.deviceSplitCount(), 1, Integer.MAX_VALUE);
    double memScaling = n.positiveNumber("deviceMemoryScaling", d.deviceMemoryScaling());
    double coreScaling = n.positiveNumber("deviceCoreScaling", d.deviceCoreScaling());
    int preConfigured =
        (int)
            n.integer(
                "preConfiguredDeviceMemory", d.preConfiguredDeviceMemory(), 0, Integer.MAX_VALUE);
    int logLevel = (int) n.integer("libCudaLogLevel", d.libCudaLogLevel(), 0, 4);
    boolean numa = n.bool("enableNumaTopology", d.enableNumaTopology());
    GpuCorePolicy policy = d.gpuCorePolicy();
    String p = n.string("gpuCorePolicy", policy.wire());
    var parsed = GpuCorePolicy.fromWire(p);
    if (parsed.isPresent()) {
      policy = parsed.get();
    } else {
      n.error("gpuCorePolicy", n.get("gpuCorePolicy"), "must be one of default, force, disable");
    }
    boolean disableCoreLimit = n.bool("disableCoreLimit", d.disableCoreLimit());
    String runtimeClass = n.runtimeClassName("runtimeClassName");
    List<MigAllowlistEntry> allow = new ArrayList<>();
    for (ConfigNode e : n.objects("migProfileAllowlist")) {
      allow.add(new MigAllowlistEntry(e.stringList("models"), e.stringList("profiles")));
      e.finish();
    }
    // template MIG geometries (v2.5–v2.9) are not modelled
    n.ignore("knownMigGeometries");
    n.finish();
    return new NvidiaConfig(
        names,
        overwriteEnv,
        defaultMemory,
        defaultCores,
        defaultGpuNum,
        memoryFactor,
        split,
        memScaling,
        coreScaling,
        preConfigured,
        logLevel,
        numa,
        policy,
        disableCoreLimit,
        runtimeClass,
        allow);
  }

  private static void distinct(ConfigNode n, ResourceNames names) {
    String[] keys = {
      "resourceCountName",
      "resourceMemoryName",
      "resourceMemoryPercentageName",
      "resourceCoreName",
      "resourcePriorityName"
    };
    String[] values = {
      names.count(), names.memory(), names.memoryPercentage(), names.core(), names.priority()
    };
    Map<String, String> seen = new HashMap<>();
    for (int i = 0; i < keys.length; i++) {
      if (values[i].isEmpty()) {
        continue;
      }
      String prev = seen.putIfAbsent(values[i], keys[i]);
      if (prev != null) {
        n.error(keys[i], n.get(keys[i]), "duplicates " + prev);
      }
    }
  }

  private static CambriconConfig cambricon(@Nullable ConfigNode n) {
    if (n == null) {
      return CambriconConfig.DEFAULTS;
    }
    ResourceNames d = ResourceNames.CAMBRICON;
    ResourceNames names =
        new ResourceNames(
            n.resourceName("resourceCountName", d.count()),
            n.resourceName("resourceMemoryName", d.memory()),
            "",
            n.resourceName("resourceCoreName", d.core()),
            "");
    n.finish();
    return new CambriconConfig(names);
  }

  private static HygonConfig hygon(@Nullable ConfigNode n) {
    if (n == null) {
      return HygonConfig.DEFAULTS;
    }
    ResourceNames d = ResourceNames.HYGON;
    ResourceNames names =
        new ResourceNames(
            n.resourceName("resourceCountName", d.count()),
            n.resourceName("resourceMemoryName", d.memory()),
            "",
            n.resourceName("resourceCoreName", d.core()),
            "");
    int factor = (int) n.integer("memoryFactor", 1, 1, Integer.MAX_VALUE);
    n.finish();
    return new HygonConfig(names, factor);
  }

  private static List<IluvatarConfig> iluvatars(ConfigNode top) {
    List<IluvatarConfig> out = new ArrayList<>();
    Set<String> words = new HashSet<>();
    for (ConfigNode n : top.objects("iluvatars")) {
      String chip = n.requiredString("chipName");
      String word = n.requiredString("commonWord");
      if (!word.isEmpty() && !words.add(word)) {
        n.error("commonWord", n.get("commonWord"), "duplicate commonWord");
      }
      ResourceNames d = ResourceNames.iluvatar(chip.isEmpty() ? "chip" : chip);
      ResourceNames names =
          new ResourceNames(
              n.resourceName("resourceCountName", d.count()),
              n.resourceName("resourceMemoryName", d.memory()),
              "",
              n.resourceName("resourceCoreName", d.core()),
              "");
      n.finish();
      out.add(new IluvatarConfig(chip, word, names));
    }
    return out;
  }

  private static AscendConfig vnpus(@Nullable ConfigNode n) {
    if (n == null) {
      return AscendConfig.DEFAULTS;
    }
    boolean hamiCore = n.bool("hamiVnpuCore", false);
    List<AscendChipConfig> configs = new ArrayList<>();
    Set<String> words = new HashSet<>();
    for (ConfigNode c : n.objects("configs")) {
      String chip = c.requiredString("chipName");
      String word = c.requiredString("commonWord");
      if (!word.isEmpty() && !words.add(word)) {
        c.error("commonWord", c.get("commonWord"), "duplicate commonWord");
      }
      String resource = c.resourceName("resourceName", word.isEmpty() ? "" : "huawei.com/" + word);
      String memResource =
          c.resourceName(
              "resourceMemoryName", word.isEmpty() ? "" : "huawei.com/" + word + "-memory");
      String coreResource = c.resourceName("resourceCoreName", "");
      long allocatable = c.integer("memoryAllocatable", 0, 0, Long.MAX_VALUE);
      long capacity = c.integer("memoryCapacity", 0, 0, Long.MAX_VALUE);
      if (capacity > 0 && allocatable > capacity) {
        c.error(
            "memoryAllocatable",
            c.get("memoryAllocatable"),
            "must not exceed memoryCapacity " + capacity);
      }
      int factor = (int) c.integer("memoryFactor", 1, 1, Integer.MAX_VALUE);
      int aiCore = (int) c.integer("aiCore", 0, 0, Integer.MAX_VALUE);
      int aiCpu = (int) c.integer("aiCPU", 0, 0, Integer.MAX_VALUE);
      String runtimeClass = c.runtimeClassName("runtimeClassName");
      boolean overwriteEnv = c.bool("overwriteEnv", false);
      boolean superPod = c.bool("superPod", false);
      List<AscendTemplate> templates = new ArrayList<>();
      Set<String> names = new HashSet<>();
      for (ConfigNode t : c.objects("templates")) {
        String name = t.requiredString("name");
        if (!name.isEmpty() && !names.add(name)) {
          t.error("name", t.get("name"), "duplicate template name");
        }
        int mem = (int) t.integer("memory", 0, 1, Integer.MAX_VALUE);
        if (t.get("memory") == null) {
          t.error("memory", null, "is required");
        }
        int core = (int) t.integer("aiCore", 0, 0, Integer.MAX_VALUE);
        int cpu = (int) t.integer("aiCPU", 0, 0, Integer.MAX_VALUE);
        t.finish();
        templates.add(new AscendTemplate(name, mem, core, cpu));
      }
      c.finish();
      configs.add(
          new AscendChipConfig(
              chip,
              word,
              resource,
              memResource,
              coreResource,
              allocatable,
              capacity,
              factor,
              aiCore,
              aiCpu,
              runtimeClass,
              overwriteEnv,
              superPod,
              templates));
    }
    n.finish();
    return new AscendConfig(hamiCore, configs);
  }
}
