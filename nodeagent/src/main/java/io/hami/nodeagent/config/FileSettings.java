package io.hami.nodeagent.config;

import io.hami.model.ProtocolError;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.DeviceConfigFile;
import io.hami.model.config.MigAllowlistEntry;
import io.hami.model.config.NvidiaConfig;
import io.hami.model.config.Validated;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Node-agent settings from the shared device config file ({@code device-config.yaml}, section
 * {@code nvidia}, spec §6.3, read by the protocol model) and the per-node override file ({@code
 * config.json}, the {@code nodeconfig} entry whose name is this node). Unset values are null; the
 * command applies them below flags.
 */
public record FileSettings(
    @Nullable String resourceName,
    @Nullable Integer splitCount,
    @Nullable Double memoryScaling,
    @Nullable Double coreScaling,
    @Nullable Long preConfiguredMemoryMiB,
    @Nullable String libCudaLogLevel,
    @Nullable Boolean numaTopology,
    @Nullable Boolean disableCoreLimit,
    @Nullable OperatingMode mode,
    @Nullable Boolean preferredAllocation,
    List<String> excludedUuids,
    List<Integer> excludedIndices,
    List<MigAllowlistEntry> migProfileAllowlist) {

  public static final FileSettings NONE =
      new FileSettings(
          null, null, null, null, null, null, null, null, null, null, List.of(), List.of(),
          List.of());

  /** Values of {@code over} where set, else of this. */
  public FileSettings overriddenBy(FileSettings over) {
    List<String> uuids = new ArrayList<>(excludedUuids);
    uuids.addAll(over.excludedUuids);
    List<Integer> indices = new ArrayList<>(excludedIndices);
    indices.addAll(over.excludedIndices);
    return new FileSettings(
        pick(over.resourceName, resourceName),
        pick(over.splitCount, splitCount),
        pick(over.memoryScaling, memoryScaling),
        pick(over.coreScaling, coreScaling),
        pick(over.preConfiguredMemoryMiB, preConfiguredMemoryMiB),
        pick(over.libCudaLogLevel, libCudaLogLevel),
        pick(over.numaTopology, numaTopology),
        pick(over.disableCoreLimit, disableCoreLimit),
        pick(over.mode, mode),
        pick(over.preferredAllocation, preferredAllocation),
        List.copyOf(uuids),
        List.copyOf(indices),
        over.migProfileAllowlist.isEmpty() ? migProfileAllowlist : over.migProfileAllowlist);
  }

  private static <T> @Nullable T pick(@Nullable T a, @Nullable T b) {
    return a != null ? a : b;
  }

  /**
   * Reads the {@code nvidia} section of a device config file through the protocol model's parser
   * (the one the scheduler and webhook use), with the chart defaults for absent keys; every problem
   * goes to {@code errors} with its path and value.
   */
  public static FileSettings deviceConfig(Path file, List<String> errors) {
    Validated<DeviceConfig> v = DeviceConfigFile.load(file);
    if (v instanceof Validated.Invalid<DeviceConfig> bad) {
      for (ProtocolError e : bad.errors()) {
        String value = e.value().isEmpty() || e.field().isEmpty() ? "" : "'" + e.value() + "' ";
        errors.add(
            file + ": " + (e.field().isEmpty() ? "" : e.field() + ": ") + value + e.message());
      }
      return NONE;
    }
    NvidiaConfig n = ((Validated.Valid<DeviceConfig>) v).value().nvidia();
    return new FileSettings(
        n.resourceNames().count(),
        n.deviceSplitCount(),
        n.deviceMemoryScaling(),
        n.deviceCoreScaling(),
        (long) n.preConfiguredDeviceMemory(),
        Integer.toString(n.libCudaLogLevel()),
        n.enableNumaTopology(),
        n.disableCoreLimit(),
        null,
        null,
        List.of(),
        List.of(),
        n.migProfileAllowlist());
  }

  /** Reads this node's entry of a per-node config file; problems go to {@code errors}. */
  public static FileSettings nodeConfig(Path file, String nodeName, List<String> errors) {
    JsonNode root = read(file, errors);
    if (root == null) {
      return NONE;
    }
    JsonNode list = root.get("nodeconfig");
    if (list == null || !list.isArray()) {
      return NONE;
    }
    for (int i = 0; i < list.size(); i++) {
      JsonNode e = list.get(i);
      JsonNode name = e.get("name");
      if (name == null || !nodeName.equals(text(name))) {
        continue;
      }
      Fields f = new Fields(file + ": nodeconfig[" + i + "].", e, errors);
      OperatingMode mode = null;
      String m = f.string("operatingmode");
      if (m != null && !m.isEmpty()) {
        mode = OperatingMode.parse(m).orElse(null);
        if (mode == null) {
          errors.add(
              file
                  + ": nodeconfig["
                  + i
                  + "].operatingmode: '"
                  + m
                  + "' is not hami-core, mig or mps");
        }
      }
      List<String> uuids = new ArrayList<>();
      List<Integer> indices = new ArrayList<>();
      JsonNode filter = e.get("filterdevices");
      final int entry = i;
      if (filter != null && filter.isObject()) {
        JsonNode u = filter.get("uuid");
        if (u != null && u.isArray()) {
          u.forEach(x -> uuids.add(text(x)));
        }
        JsonNode ix = filter.get("index");
        if (ix != null && ix.isArray()) {
          ix.forEach(
              x -> {
                if (x.isIntegralNumber()) {
                  indices.add(x.asInt());
                } else {
                  errors.add(
                      file
                          + ": nodeconfig["
                          + entry
                          + "].filterdevices.index: '"
                          + text(x)
                          + "' is not an integer");
                }
              });
        }
      }
      return new FileSettings(
          null,
          f.integer("devicesplitcount"),
          f.decimal("devicememoryscaling"),
          f.decimal("devicecorescaling"),
          f.longValue("preconfigureddevicememory"),
          f.string("libcudaloglevel"),
          f.bool("enablenumatopology"),
          null,
          mode,
          f.bool("enablegetpreferredallocation"),
          List.copyOf(uuids),
          List.copyOf(indices),
          List.of());
    }
    return NONE;
  }

  /** A scalar's text, or the JSON of anything else (Jackson 3 refuses to coerce those). */
  static String text(JsonNode v) {
    return v.isValueNode() ? v.asString() : v.toString();
  }

  private static @Nullable JsonNode read(Path file, List<String> errors) {
    try {
      return new YAMLMapper().readTree(Files.readString(file));
    } catch (IOException e) {
      errors.add(file + ": cannot read: " + e.getMessage());
    } catch (JacksonException e) {
      errors.add(file + ": not valid YAML or JSON: " + e.getOriginalMessage());
    }
    return null;
  }

  /** Typed field access that records a problem instead of failing. */
  private record Fields(String prefix, JsonNode node, List<String> errors) {
    @Nullable JsonNode get(String key) {
      JsonNode v = node.get(key);
      return v == null || v.isNull() ? null : v;
    }

    @Nullable String string(String key) {
      JsonNode v = get(key);
      if (v == null) {
        return null;
      }
      if (!v.isValueNode()) {
        errors.add(prefix + key + ": '" + text(v) + "' is not a string");
        return null;
      }
      return text(v);
    }

    @Nullable Integer integer(String key) {
      JsonNode v = get(key);
      if (v == null) {
        return null;
      }
      if (v.isIntegralNumber() && v.canConvertToInt()) {
        return v.asInt();
      }
      errors.add(prefix + key + ": '" + text(v) + "' is not an integer");
      return null;
    }

    @Nullable Long longValue(String key) {
      JsonNode v = get(key);
      if (v == null) {
        return null;
      }
      if (v.isIntegralNumber()) {
        return v.asLong();
      }
      errors.add(prefix + key + ": '" + text(v) + "' is not an integer");
      return null;
    }

    @Nullable Double decimal(String key) {
      JsonNode v = get(key);
      if (v == null) {
        return null;
      }
      if (v.isNumber()) {
        return v.asDouble();
      }
      errors.add(prefix + key + ": '" + text(v) + "' is not a number");
      return null;
    }

    @Nullable Boolean bool(String key) {
      JsonNode v = get(key);
      if (v == null) {
        return null;
      }
      if (v.isBoolean()) {
        return v.asBoolean();
      }
      errors.add(prefix + key + ": '" + text(v) + "' is not true or false");
      return null;
    }
  }
}
