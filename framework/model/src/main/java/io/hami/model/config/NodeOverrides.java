package io.hami.model.config;

import com.google.common.collect.ImmutableSet;
import io.hami.model.ProtocolError;
import io.hami.model.internal.GoText;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The node agent's per-node overrides file: {@code
 * {"nodeconfig":[{"name":"<node>","operatingmode":"hami-core","devicesplitcount":10,...}]}}.
 */
public final class NodeOverrides {

  private static final ImmutableSet<String> MODES = ImmutableSet.of("hami-core", "mig", "mps");
  private static final ImmutableSet<String> MIG_STRATEGIES =
      ImmutableSet.of("none", "single", "mixed");

  private static final JsonMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(32)
                          .maxNumberLength(64)
                          .maxDocumentLength(DeviceConfigFile.MAX_BYTES)
                          .build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private NodeOverrides() {}

  /** Parses the file and validates every entry. */
  public static Validated<List<NodeOverride>> parse(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JacksonException | IllegalArgumentException | IllegalStateException e) {
      String m =
          e.getMessage() == null
              ? e.getClass().getSimpleName()
              : e.getMessage().lines().findFirst().orElse("");
      return new Validated.Invalid<>(List.of(ProtocolError.of("", "", "invalid JSON: " + m)));
    }
    if (root == null || !root.isObject()) {
      return new Validated.Invalid<>(
          List.of(
              ProtocolError.of(
                  "", root == null ? "" : ConfigNode.text(root), "must be a JSON object")));
    }
    List<ProtocolError> errors = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    ConfigNode top = new ConfigNode(root, "", errors, warnings);
    List<NodeOverride> out = new ArrayList<>();
    for (ConfigNode n : top.objects("nodeconfig")) {
      out.add(entry(n));
    }
    top.finish();
    return errors.isEmpty()
        ? new Validated.Valid<>(out, warnings)
        : new Validated.Invalid<>(errors);
  }

  /** The entry for {@code node}, if any (the first match wins). */
  public static Optional<NodeOverride> forNode(List<NodeOverride> overrides, String node) {
    return overrides.stream().filter(o -> o.name().equals(node)).findFirst();
  }

  private static NodeOverride entry(ConfigNode n) {
    String name = n.requiredString("name");
    Optional<String> mode = oneOf(n, "operatingmode", MODES);
    OptionalInt split =
        n.get("devicesplitcount") == null
            ? OptionalInt.empty()
            : OptionalInt.of((int) n.integer("devicesplitcount", 1, 1, Integer.MAX_VALUE));
    OptionalDouble mem =
        n.get("devicememoryscaling") == null
            ? OptionalDouble.empty()
            : OptionalDouble.of(n.positiveNumber("devicememoryscaling", 1));
    OptionalDouble core =
        n.get("devicecorescaling") == null
            ? OptionalDouble.empty()
            : OptionalDouble.of(n.positiveNumber("devicecorescaling", 1));
    OptionalInt pre =
        n.get("preconfigureddevicememory") == null
            ? OptionalInt.empty()
            : OptionalInt.of((int) n.integer("preconfigureddevicememory", 0, 0, Integer.MAX_VALUE));
    OptionalInt log = OptionalInt.empty();
    JsonNode lv = n.get("libcudaloglevel");
    if (lv != null) {
      // written as a string in the reference file, accepted as a number too
      long l =
          lv.isIntegralNumber() && lv.canConvertToInt()
              ? lv.intValue()
              : lv.isString() ? GoText.parseInt32(lv.stringValue()) : GoText.INVALID;
      if (l < 0 || l > 4) {
        n.error("libcudaloglevel", lv, "must be 0 to 4");
      } else {
        log = OptionalInt.of((int) l);
      }
    }
    Optional<Boolean> numa =
        n.get("enablenumatopology") == null
            ? Optional.empty()
            : Optional.of(n.bool("enablenumatopology", false));
    Optional<String> mig = oneOf(n, "migstrategy", MIG_STRATEGIES);
    List<String> uuids = List.of();
    List<Integer> indexes = new ArrayList<>();
    ConfigNode filter = n.object("filterdevices");
    if (filter != null) {
      uuids = filter.stringList("uuid");
      JsonNode idx = filter.get("index");
      if (idx != null) {
        if (!idx.isArray()) {
          filter.error("index", idx, "must be a list of integers");
        } else {
          int i = 0;
          for (JsonNode v : idx.values()) {
            if (v.isIntegralNumber() && v.canConvertToInt() && v.intValue() >= 0) {
              indexes.add(v.intValue());
            } else {
              filter.error("index[" + i + "]", v, "must be a non-negative integer");
            }
            i++;
          }
        }
      }
      filter.finish();
    }
    boolean preferred = n.bool("enablegetpreferredallocation", false);
    n.finish();
    return new NodeOverride(
        name, mode, split, mem, core, pre, log, numa, mig, uuids, indexes, preferred);
  }

  private static Optional<String> oneOf(ConfigNode n, String key, Set<String> allowed) {
    if (n.get(key) == null) {
      return Optional.empty();
    }
    String v = n.string(key, "");
    if (!allowed.contains(v)) {
      n.error(key, n.get(key), "must be one of " + String.join(", ", new TreeSet<>(allowed)));
      return Optional.empty();
    }
    return Optional.of(v);
  }
}
