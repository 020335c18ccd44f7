package io.hami.framework.config;

import com.google.common.collect.ImmutableSet;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.queue.QueueTimeouts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads a {@link SchedulerConfiguration} from YAML: parse, apply defaults, then validate,
 * collecting every error with its path ({@code profiles[0].plugins.score.enabled[1].weight: invalid
 * value 0: must be in 1..100}). Plugin arguments are decoded into the registered record type on top
 * of the registered defaults and then validated by the record itself.
 */
public final class ConfigLoader {
  private static final ImmutableSet<String> TOP_FIELDS =
      ImmutableSet.of(
          "apiVersion",
          "kind",
          "parallelism",
          "percentageOfNodesToScore",
          "podInitialBackoffSeconds",
          "podMaxBackoffSeconds",
          "podMaxInUnschedulablePodsSeconds",
          "assumedPodTtlSeconds",
          "leaderElection",
          "profiles");
  private static final ImmutableSet<String> LEADER_FIELDS =
      ImmutableSet.of(
          "leaseNamespace",
          "leaseName",
          "leaseDurationSeconds",
          "renewDeadlineSeconds",
          "retryPeriodSeconds");
  private static final ImmutableSet<String> PROFILE_FIELDS =
      ImmutableSet.of(
          "schedulerName", "percentageOfNodesToScore", "primaryScore", "plugins", "pluginConfig");
  private static final ImmutableSet<String> SET_FIELDS = ImmutableSet.of("enabled", "disabled");
  private static final ImmutableSet<String> REF_FIELDS = ImmutableSet.of("name", "weight");
  private static final ImmutableSet<String> PLUGIN_CONFIG_FIELDS = ImmutableSet.of("name", "args");

  private final PluginCatalog registry;
  private final YAMLMapper mapper;

  public ConfigLoader(PluginCatalog registry) {
    this.registry = registry;
    this.mapper =
        YAMLMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
  }

  /** Loads and validates a file. @throws ConfigException listing every problem */
  public SchedulerConfiguration load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException(file.toString(), List.of("cannot read: " + e.getMessage()));
    }
    return parse(text, file.toString());
  }

  /** Parses and validates YAML text. @throws ConfigException listing every problem */
  public SchedulerConfiguration parse(String yaml, String source) {
    JsonNode root;
    try {
      root = mapper.readTree(yaml);
    } catch (JacksonException e) {
      throw new ConfigException(source, List.of("not valid YAML: " + e.getOriginalMessage()));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new ConfigException(source, List.of("empty configuration"));
    }
    FieldErrors errors = FieldErrors.at("");
    SchedulerConfiguration config = decode(root, errors);
    if (!errors.isEmpty()) {
      throw new ConfigException(source, errors.messages());
    }
    return config;
  }

  /** Validates the built-in defaults against the registry (names, arguments). */
  public SchedulerConfiguration defaults() {
    return parse(
        "apiVersion: "
            + SchedulerConfiguration.API_VERSION
            + "\nkind: "
            + SchedulerConfiguration.KIND
            + "\n",
        "defaults");
  }

  private SchedulerConfiguration decode(JsonNode root, FieldErrors errors) {
    SchedulerConfiguration d = SchedulerConfiguration.defaults();
    if (!checkObject(root, "", TOP_FIELDS, errors)) {
      return d;
    }
    checkTypeMeta(root, errors);
    int parallelism = integer(root, "parallelism", d.parallelism(), errors);
    if (parallelism < 1) {
      errors.invalid("parallelism", parallelism, "must be at least 1");
    }
    int percentage =
        integer(root, "percentageOfNodesToScore", d.percentageOfNodesToScore(), errors);
    checkPercentage(percentage, "percentageOfNodesToScore", errors);
    Duration initial =
        seconds(root, "podInitialBackoffSeconds", d.podInitialBackoff(), errors, false);
    Duration max = seconds(root, "podMaxBackoffSeconds", d.podMaxBackoff(), errors, false);
    if (max.compareTo(initial) < 0) {
      errors.invalid(
          "podMaxBackoffSeconds",
          max.toSeconds(),
          "must not be less than podInitialBackoffSeconds");
    }
    Duration unsched =
        seconds(
            root, "podMaxInUnschedulablePodsSeconds", d.podMaxInUnschedulablePods(), errors, false);
    Duration ttl = seconds(root, "assumedPodTtlSeconds", d.assumedPodTtl(), errors, true);
    LeaderElectionConfig le = leaderElection(root.get("leaderElection"), errors);

    List<ProfileConfig> profiles = profiles(root.get("profiles"), d.profiles(), errors);
    return new SchedulerConfiguration(
        parallelism, percentage, new QueueTimeouts(initial, max, unsched), ttl, le, profiles);
  }

  private static void checkTypeMeta(JsonNode root, FieldErrors errors) {
    String apiVersion = string(root, "apiVersion", null, errors);
    if (apiVersion == null) {
      errors.required("apiVersion");
    } else if (!SchedulerConfiguration.API_VERSION.equals(apiVersion)) {
      errors.invalid("apiVersion", apiVersion, "must be " + SchedulerConfiguration.API_VERSION);
    }
    String kind = string(root, "kind", null, errors);
    if (kind == null) {
      errors.required("kind");
    } else if (!SchedulerConfiguration.KIND.equals(kind)) {
      errors.invalid("kind", kind, "must be " + SchedulerConfiguration.KIND);
    }
  }

  private List<ProfileConfig> profiles(
      @Nullable JsonNode ps, List<ProfileConfig> defaults, FieldErrors errors) {
    List<ProfileConfig> profiles = new ArrayList<>();
    if (ps == null || ps.isNull()) {
      profiles.addAll(defaults);
    } else if (!ps.isArray()) {
      errors.invalid("profiles", ps.getNodeType(), "must be a list");
    } else if (ps.isEmpty()) {
      errors.add("profiles", "must have at least one profile");
    } else {
      Set<String> names = new HashSet<>();
      for (int i = 0; i < ps.size(); i++) {
        FieldErrors pe = errors.child("profiles[" + i + "]");
        ProfileConfig p = profile(ps.get(i), pe, ps.size() == 1);
        if (p != null) {
          if (!names.add(p.schedulerName())) {
            pe.invalid("schedulerName", p.schedulerName(), "duplicate scheduler name");
          }
          profiles.add(p);
        }
      }
    }
    return profiles;
  }

  private LeaderElectionConfig leaderElection(@Nullable JsonNode n, FieldErrors errors) {
    LeaderElectionConfig d = LeaderElectionConfig.defaults();
    if (n == null || n.isNull()) {
      return d;
    }
    FieldErrors e = errors.child("leaderElection");
    if (!checkObject(n, "", LEADER_FIELDS, e)) {
      return d;
    }
    String ns = string(n, "leaseNamespace", d.leaseNamespace(), e);
    String name = string(n, "leaseName", d.leaseName(), e);
    if (ns == null || ns.isBlank()) {
      e.invalid("leaseNamespace", ns, "must not be empty");
      ns = d.leaseNamespace();
    }
    if (name == null || name.isBlank()) {
      e.invalid("leaseName", name, "must not be empty");
      name = d.leaseName();
    }
    Duration lease = seconds(n, "leaseDurationSeconds", d.leaseDuration(), e, false);
    Duration renew = seconds(n, "renewDeadlineSeconds", d.renewDeadline(), e, false);
    Duration retry = seconds(n, "retryPeriodSeconds", d.retryPeriod(), e, false);
    if (renew.compareTo(lease) >= 0) {
      e.invalid(
          "renewDeadlineSeconds", renew.toSeconds(), "must be less than leaseDurationSeconds");
    }
    if (retry.compareTo(renew) >= 0) {
      e.invalid("retryPeriodSeconds", retry.toSeconds(), "must be less than renewDeadlineSeconds");
    }
    return new LeaderElectionConfig(ns, name, lease, renew, retry);
  }

  private @Nullable ProfileConfig profile(JsonNode n, FieldErrors e, boolean only) {
    if (!checkObject(n, "", PROFILE_FIELDS, e)) {
      return null;
    }
    String name = string(n, "schedulerName", null, e);
    if (name == null) {
      if (only) {
        name = SchedulerConfiguration.DEFAULT_SCHEDULER_NAME;
      } else {
        e.required("schedulerName");
        name = "";
      }
    } else if (name.isBlank()) {
      e.invalid("schedulerName", name, "must not be empty");
    }
    Integer percentage = null;
    if (n.has("percentageOfNodesToScore")) {
      percentage = integer(n, "percentageOfNodesToScore", 0, e);
      checkPercentage(percentage, "percentageOfNodesToScore", e);
    }
    Map<ExtensionPoint, PluginSet> points = new EnumMap<>(ExtensionPoint.class);
    PluginSet multiPoint = plugins(n.get("plugins"), e, points);
    Map<String, PluginArgs> args = pluginConfig(n.get("pluginConfig"), e);
    return new ProfileConfig(
        name, percentage, multiPoint, points, args, primaryScores(n.get("primaryScore"), e));
  }

  /**
   * Decodes {@code primaryScore}: one plugin name or a list of them, first deciding; blank or
   * absent means none. Whether each names a Score plugin of the profile is checked on assembly.
   */
  private static List<String> primaryScores(@Nullable JsonNode n, FieldErrors e) {
    if (n == null || n.isNull()) {
      return List.of();
    }
    if (n.isString()) {
      return n.stringValue().isBlank() ? List.of() : List.of(n.stringValue());
    }
    if (!n.isArray()) {
      e.invalid("primaryScore", n.toString(), "must be a plugin name or a list of them");
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n.size(); i++) {
      JsonNode v = n.get(i);
      String field = "primaryScore[" + i + "]";
      if (!v.isString() || v.stringValue().isBlank()) {
        e.invalid(field, v.toString(), "must be a plugin name");
      } else if (out.contains(v.stringValue())) {
        e.invalid(field, v.stringValue(), "listed twice");
      } else {
        out.add(v.stringValue());
      }
    }
    return out;
  }

  /** Decodes a profile's {@code plugins}: returns the multi-point set, puts the per-point ones. */
  private PluginSet plugins(
      @Nullable JsonNode plugins, FieldErrors e, Map<ExtensionPoint, PluginSet> points) {
    PluginSet multiPoint = PluginSet.empty();
    if (plugins == null || plugins.isNull()) {
      return multiPoint;
    }
    FieldErrors pe = e.child("plugins");
    Set<String> allowed = new HashSet<>();
    allowed.add("multiPoint");
    for (ExtensionPoint p : ExtensionPoint.values()) {
      allowed.add(p.yamlName());
    }
    if (checkObject(plugins, "", allowed, pe)) {
      JsonNode mp = plugins.get("multiPoint");
      if (mp != null && !mp.isNull()) {
        multiPoint = pluginSet(mp, pe.child("multiPoint"), true);
      }
      for (ExtensionPoint p : ExtensionPoint.values()) {
        JsonNode s = plugins.get(p.yamlName());
        if (s != null && !s.isNull()) {
          points.put(p, pluginSet(s, pe.child(p.yamlName()), p == ExtensionPoint.SCORE));
        }
      }
    }
    return multiPoint;
  }

  /** Decodes a profile's {@code pluginConfig}: each named plugin's typed arguments. */
  private Map<String, PluginArgs> pluginConfig(@Nullable JsonNode pcs, FieldErrors e) {
    Map<String, PluginArgs> args = new LinkedHashMap<>();
    if (pcs == null || pcs.isNull()) {
      return args;
    }
    if (!pcs.isArray()) {
      e.invalid("pluginConfig", pcs.getNodeType(), "must be a list");
      return args;
    }
    for (int i = 0; i < pcs.size(); i++) {
      FieldErrors ce = e.child("pluginConfig[" + i + "]");
      JsonNode pc = pcs.get(i);
      if (!checkObject(pc, "", PLUGIN_CONFIG_FIELDS, ce)) {
        continue;
      }
      String pluginName = string(pc, "name", null, ce);
      if (pluginName == null) {
        ce.required("name");
        continue;
      }
      PluginRegistration<?> reg = registry.get(pluginName).orElse(null);
      if (reg == null) {
        ce.invalid("name", pluginName, "no plugin registered with this name");
        continue;
      }
      if (args.containsKey(pluginName)) {
        ce.invalid("name", pluginName, "duplicate pluginConfig entry");
        continue;
      }
      PluginArgs a = decodeArgs(reg, pc.get("args"), ce.child("args"));
      if (a != null) {
        args.put(pluginName, a);
      }
    }
    return args;
  }

  private @Nullable PluginArgs decodeArgs(
      PluginRegistration<?> reg, @Nullable JsonNode user, FieldErrors e) {
    PluginArgs value;
    if (user == null || user.isNull()) {
      value = reg.defaultArgs();
    } else if (!user.isObject()) {
      e.add("", "must be a mapping, not " + user.getNodeType());
      return null;
    } else {
      JsonNode defaults = mapper.valueToTree(reg.defaultArgs());
      JsonNode merged = merge(defaults.deepCopy(), user);
      try {
        value = mapper.treeToValue(merged, reg.argsType());
      } catch (DatabindException ex) {
        e.add(jacksonPath(ex), ex.getOriginalMessage());
        return null;
      } catch (JacksonException | IllegalArgumentException ex) {
        e.add("", String.valueOf(ex.getMessage()));
        return null;
      }
    }
    int before = e.messages().size();
    value.validate(e);
    return e.messages().size() == before ? value : null;
  }

  private static JsonNode merge(JsonNode base, JsonNode overlay) {
    if (!(base instanceof ObjectNode b) || !overlay.isObject()) {
      return overlay;
    }
    for (String field : overlay.propertyNames()) {
      JsonNode o = overlay.get(field);
      JsonNode existing = b.get(field);
      b.set(field, existing == null ? o : merge(existing, o));
    }
    return b;
  }

  private static String jacksonPath(DatabindException ex) {
    StringBuilder sb = new StringBuilder();
    for (var ref : ex.getPath()) {
      if (ref.getIndex() >= 0) {
        sb.append('[').append(ref.getIndex()).append(']');
      } else if (ref.getPropertyName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(ref.getPropertyName());
      }
    }
    return sb.toString();
  }

  private PluginSet pluginSet(JsonNode n, FieldErrors e, boolean weighted) {
    if (!checkObject(n, "", SET_FIELDS, e)) {
      return PluginSet.empty();
    }
    return new PluginSet(
        refs(n.get("enabled"), e.child("enabled"), weighted, false),
        refs(n.get("disabled"), e.child("disabled"), false, true));
  }

  private List<PluginRef> refs(
      @Nullable JsonNode n, FieldErrors e, boolean weighted, boolean disabled) {
    if (n == null || n.isNull()) {
      return List.of();
    }
    if (!n.isArray()) {
      e.add("", "must be a list, not " + n.getNodeType());
      return List.of();
    }
    List<PluginRef> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < n.size(); i++) {
      FieldErrors re = e.child("[" + i + "]");
      JsonNode r = n.get(i);
      if (!checkObject(r, "", REF_FIELDS, re)) {
        continue;
      }
      String name = string(r, "name", null, re);
      if (name == null) {
        re.required("name");
        continue;
      }
      boolean star = PluginRef.ALL.equals(name);
      if (!(disabled && star) && !registry.contains(name)) {
        re.invalid("name", name, "no plugin registered with this name");
        continue;
      }
      if (!seen.add(name)) {
        re.invalid("name", name, "listed twice");
        continue;
      }
      Integer weight = null;
      if (r.has("weight")) {
        int w = integer(r, "weight", 1, re);
        if (!weighted) {
          re.add("weight", "only allowed under score and multiPoint enabled lists");
        } else if (w < 1 || w > 100) {
          re.invalid("weight", w, "must be in 1..100");
        }
        weight = w;
      }
      out.add(new PluginRef(name, weight));
    }
    return out;
  }

  private static void checkPercentage(int value, String field, FieldErrors e) {
    if (value < 0 || value > 100) {
      e.invalid(field, value, "must be in 0..100 (0 = adaptive)");
    }
  }

  private static boolean checkObject(JsonNode n, String field, Set<String> allowed, FieldErrors e) {
    if (!n.isObject()) {
      e.add(field, "must be a mapping, not " + n.getNodeType());
      return false;
    }
    for (String f : n.propertyNames()) {
      if (!allowed.contains(f)) {
        e.add(field.isEmpty() ? f : field + "." + f, "unknown field");
      }
    }
    return true;
  }

  private static @Nullable String string(
      JsonNode n, String field, @Nullable String dflt, FieldErrors e) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isString()) {
      e.invalid(field, v.toString(), "must be a string");
      return dflt;
    }
    return v.stringValue();
  }

  private static int integer(JsonNode n, String field, int dflt, FieldErrors e) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      e.invalid(field, v.toString(), "must be an integer");
      return dflt;
    }
    return v.intValue();
  }

  private static Duration seconds(
      JsonNode n, String field, Duration dflt, FieldErrors e, boolean zeroAllowed) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isNumber()) {
      e.invalid(field, v.toString(), "must be a number of seconds");
      return dflt;
    }
    double s = v.doubleValue();
    if (s < 0 || (!zeroAllowed && s == 0)) {
      e.invalid(field, v.toString(), zeroAllowed ? "must not be negative" : "must be positive");
      return dflt;
    }
    return Duration.ofMillis(Math.round(s * 1000));
  }
}
