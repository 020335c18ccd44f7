package io.hami.model.config;

import io.hami.model.ProtocolError;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/** Reads typed fields from one mapping of a config tree, recording every problem with its path. */
final class ConfigNode {

  private static final Pattern RESOURCE_NAME =
      Pattern.compile(
          "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private final JsonNode node;
  private final String path;
  private final List<ProtocolError> errors;
  private final List<String> warnings;
  private final Set<String> used = new HashSet<>();

  ConfigNode(JsonNode node, String path, List<ProtocolError> errors, List<String> warnings) {
    this.node = node;
    this.path = path;
    this.errors = errors;
    this.warnings = warnings;
  }

  String path(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  void error(String key, @Nullable JsonNode value, String message) {
    errors.add(ProtocolError.of(path(key), value == null ? "" : text(value), message));
  }

  static String text(JsonNode v) {
    return v.isValueNode() && !v.isNull() ? v.asString() : v.toString();
  }

  /** Case-insensitive lookup; null values count as absent. */
  @Nullable JsonNode get(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    JsonNode found = null;
    for (var e : node.properties()) {
      if (e.getKey().toLowerCase(Locale.ROOT).equals(lower)) {
        used.add(e.getKey());
        found = e.getValue();
      }
    }
    return found == null || found.isNull() ? null : found;
  }

  /** Marks keys that are known but not modelled. */
  void ignore(String... keys) {
    for (String k : keys) {
      get(k);
    }
  }

  long integer(String key, long def, long min, long max) {
    JsonNode v = get(key);
    if (v == null) {
      return def;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      error(key, v, "must be an integer");
      return def;
    }
    long n = v.longValue();
    if (n < min || n > max) {
      error(
          key,
          v,
          max == Integer.MAX_VALUE || max == Long.MAX_VALUE
              ? "must be at least " + min
              : "must be between " + min + " and " + max);
      return def;
    }
    return n;
  }

  double positiveNumber(String key, double def) {
    JsonNode v = get(key);
    if (v == null) {
      return def;
    }
    if (!v.isNumber()) {
      error(key, v, "must be a number");
      return def;
    }
    double d = v.doubleValue();
    if (!(d > 0) || Double.isInfinite(d)) {
      error(key, v, "must be a positive number");
      return def;
    }
    return d;
  }

  boolean bool(String key, boolean def) {
    JsonNode v = get(key);
    if (v == null) {
      return def;
    }
    if (!v.isBoolean()) {
      error(key, v, "must be true or false");
      return def;
    }
    return v.booleanValue();
  }

  String string(String key, String def) {
    JsonNode v = get(key);
    if (v == null) {
      return def;
    }
    if (!v.isString()) {
      error(key, v, "must be a string");
      return def;
    }
    return v.stringValue();
  }

  String requiredString(String key) {
    String s = string(key, "");
    if (s.isEmpty() && get(key) == null) {
      error(key, null, "is required");
    } else if (s.isEmpty()) {
      error(key, get(key), "must not be empty");
    }
    return s;
  }

  String resourceName(String key, String def) {
    JsonNode v = get(key);
    String s = string(key, def);
    if (v != null && v.isString() && (s.length() > 316 || !RESOURCE_NAME.matcher(s).matches())) {
      error(key, v, "must be an extended resource name <domain>/<name>");
      return def;
    }
    return s;
  }

  String runtimeClassName(String key) {
    JsonNode v = get(key);
    String s = string(key, "");
    if (!s.isEmpty() && (s.length() > 253 || !DNS_SUBDOMAIN.matcher(s).matches())) {
      error(key, v, "must be a DNS subdomain name");
      return "";
    }
    return s;
  }

  List<String> stringList(String key) {
    JsonNode v = get(key);
    if (v == null) {
      return List.of();
    }
    if (!v.isArray()) {
      error(key, v, "must be a list of strings");
      return List.of();
    }
    List<String> out = new ArrayList<>();
    int i = 0;
    for (JsonNode item : v.values()) {
      if (!item.isString()) {
        error(key + "[" + i + "]", item, "must be a string");
      } else {
        out.add(item.stringValue());
      }
      i++;
    }
    return out;
  }

  @Nullable ConfigNode object(String key) {
    JsonNode v = get(key);
    if (v == null) {
      return null;
    }
    if (!v.isObject()) {
      error(key, v, "must be a mapping");
      return null;
    }
    return new ConfigNode(v, path(key), errors, warnings);
  }

  List<ConfigNode> objects(String key) {
    JsonNode v = get(key);
    if (v == null) {
      return List.of();
    }
    if (!v.isArray()) {
      error(key, v, "must be a list");
      return List.of();
    }
    List<ConfigNode> out = new ArrayList<>();
    int i = 0;
    for (JsonNode item : v.values()) {
      String p = path(key) + "[" + i + "]";
      if (!item.isObject()) {
        errors.add(ProtocolError.of(p, text(item), "must be a mapping"));
      } else {
        out.add(new ConfigNode(item, p, errors, warnings));
      }
      i++;
    }
    return out;
  }

  /** Records a warning for every key nobody read. */
  void finish() {
    for (var e : node.properties()) {
      if (!used.contains(e.getKey())) {
        warnings.add(path(e.getKey()) + ": unknown key ignored");
      }
    }
  }
}
