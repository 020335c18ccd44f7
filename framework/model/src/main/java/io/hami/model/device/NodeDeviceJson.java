package io.hami.model.device;

import io.hami.model.Decoded;
import io.hami.model.internal.GoJson;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The JSON form of the node register annotation (NVIDIA from v2.8, Ascend, AMD, Biren, Vastai, vXPU).
 *
 * <p>The writer emits keys in the reference order ({@code id, index, count, devmem, devcore, type, numa,
 * mode, migProfiles, health}) and omits zero values, so its output is byte-identical to HAMi's. The reader
 * matches keys case-insensitively, ignores unknown keys, treats missing keys as zero and accepts
 * {@code null} as "no devices".
 */
public final class NodeDeviceJson {

  private NodeDeviceJson() {}

  /** Encodes the devices; an empty list gives {@code []}. */
  public static String encode(List<NodeDevice> devices) {
    StringBuilder b = new StringBuilder(64 + devices.size() * 160).append('[');
    for (int i = 0; i < devices.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      appendDevice(b, devices.get(i));
    }
    return b.append(']').toString();
  }

  private static void appendDevice(StringBuilder b, NodeDevice d) {
    b.append('{');
    int start = b.length();
    if (!d.id().isEmpty()) {
      key(b, start, "id");
      GoJson.appendString(b, d.id());
    }
    intField(b, start, "index", d.index());
    intField(b, start, "count", d.count());
    intField(b, start, "devmem", d.devmem());
    intField(b, start, "devcore", d.devcore());
    if (!d.type().isEmpty()) {
      key(b, start, "type");
      GoJson.appendString(b, d.type());
    }
    intField(b, start, "numa", d.numa());
    if (!d.mode().isEmpty()) {
      key(b, start, "mode");
      GoJson.appendString(b, d.mode());
    }
    if (!d.migProfiles().isEmpty()) {
      key(b, start, "migProfiles");
      b.append('[');
      for (int i = 0; i < d.migProfiles().size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        appendProfile(b, d.migProfiles().get(i));
      }
      b.append(']');
    }
    if (d.health()) {
      key(b, start, "health");
      b.append("true");
    }
    b.append('}');
  }

  /** Encodes one MIG profile in its compact wire form (the instance count is not written). */
  public static String encodeProfile(MigProfile p) {
    return appendProfile(new StringBuilder(), p).toString();
  }

  private static StringBuilder appendProfile(StringBuilder b, MigProfile p) {
    b.append("{\"name\":");
    GoJson.appendString(b, p.name());
    b.append(",\"memoryMB\":").append(p.memoryMB());
    b.append(",\"core\":").append(p.core());
    b.append(",\"sliceCount\":").append(p.sliceCount());
    b.append(",\"placements\":[");
    for (int i = 0; i < p.placements().size(); i++) {
      MigPlacement pl = p.placements().get(i);
      if (i > 0) {
        b.append(',');
      }
      b.append("{\"start\":").append(pl.start()).append(",\"size\":").append(pl.size()).append('}');
    }
    return b.append("]}");
  }

  private static void intField(StringBuilder b, int start, String name, int v) {
    if (v != 0) {
      key(b, start, name);
      b.append(v);
    }
  }

  private static void key(StringBuilder b, int start, String name) {
    if (b.length() > start) {
      b.append(',');
    }
    b.append('"').append(name).append("\":");
  }

  /** Decodes the annotation value. {@code []} and {@code null} give an empty list. */
  public static Decoded<List<NodeDevice>> decode(String json) {
    return GoJson.parse("", json).flatMap(NodeDeviceJson::devices);
  }

  private static Decoded<List<NodeDevice>> devices(JsonNode root) {
    if (root.isNull()) {
      return Decoded.ok(List.of());
    }
    if (!root.isArray()) {
      return Decoded.err("", root.toString(), "node register JSON must be an array of devices");
    }
    List<NodeDevice> out = new ArrayList<>(root.size());
    int i = 0;
    for (JsonNode n : root.values()) {
      String at = "[" + i + "]";
      Decoded<NodeDevice> d = device(n).within(at);
      if (d instanceof Decoded.Err<NodeDevice> err) {
        return Decoded.err(err.error());
      }
      out.add(((Decoded.Ok<NodeDevice>) d).value());
      i++;
    }
    return Decoded.ok(List.copyOf(out));
  }

  /** Decodes one device object; used also by vendors that embed devices in other documents. */
  static Decoded<NodeDevice> device(JsonNode n) {
    if (!n.isObject()) {
      return Decoded.err("", n.toString(), "device entry must be a JSON object");
    }
    String id = "";
    String type = "";
    String mode = "";
    int index = 0;
    int count = 0;
    int devmem = 0;
    int devcore = 0;
    int numa = 0;
    boolean health = false;
    List<MigProfile> profiles = List.of();
    // one pass over the properties; later duplicates win, as in Go
    for (var e : n.properties()) {
      JsonNode v = e.getValue();
      String k = e.getKey();
      Decoded<?> r;
      switch (lower(k)) {
        case "id" -> r = GoJson.string(v, "id");
        case "index" -> r = GoJson.uint31(v, "index");
        case "count" -> r = GoJson.int32(v, "count");
        case "devmem" -> r = GoJson.int32(v, "devmem");
        case "devcore" -> r = GoJson.int32(v, "devcore");
        case "type" -> r = GoJson.string(v, "type");
        case "numa" -> r = GoJson.int32(v, "numa");
        case "mode" -> r = GoJson.string(v, "mode");
        case "health" -> r = GoJson.bool(v, "health");
        case "migprofiles" -> r = profiles(v);
        default -> {
          continue;
        }
      }
      if (r instanceof Decoded.Err<?> err) {
        return Decoded.err(err.error());
      }
      Object val = ((Decoded.Ok<?>) r).value();
      switch (lower(k)) {
        case "id" -> id = (String) val;
        case "index" -> index = (Integer) val;
        case "count" -> count = (Integer) val;
        case "devmem" -> devmem = (Integer) val;
        case "devcore" -> devcore = (Integer) val;
        case "type" -> type = (String) val;
        case "numa" -> numa = (Integer) val;
        case "mode" -> mode = (String) val;
        case "health" -> health = (Boolean) val;
        default -> {
          @SuppressWarnings("unchecked")
          List<MigProfile> p = (List<MigProfile>) val;
          profiles = p;
        }
      }
    }
    return Decoded.ok(new NodeDevice(id, index, count, devmem, devcore, type, numa, mode, profiles, health));
  }

  private static String lower(String k) {
    // keys are short; avoid allocation for the common already-lowercase case
    for (int i = 0; i < k.length(); i++) {
      char c = k.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        return k.toLowerCase(java.util.Locale.ROOT);
      }
    }
    return k;
  }

  private static Decoded<List<MigProfile>> profiles(JsonNode v) {
    if (v.isNull()) {
      return Decoded.ok(List.of());
    }
    if (!v.isArray()) {
      return Decoded.err("migProfiles", v.toString(), "migProfiles must be an array");
    }
    List<MigProfile> out = new ArrayList<>();
    int i = 0;
    for (JsonNode p : v.values()) {
      Decoded<MigProfile> d = profile(p).within("migProfiles[" + i++ + "]");
      if (d instanceof Decoded.Err<MigProfile> err) {
        return Decoded.err(err.error());
      }
      out.add(((Decoded.Ok<MigProfile>) d).value());
    }
    return Decoded.ok(out);
  }

  /** Decodes one MIG profile object. */
  public static Decoded<MigProfile> decodeProfile(String json) {
    return GoJson.parse("", json).flatMap(NodeDeviceJson::profile);
  }

  private static Decoded<MigProfile> profile(JsonNode p) {
    if (!p.isObject()) {
      return Decoded.err("", p.toString(), "MIG profile must be a JSON object");
    }
    Decoded<String> name = GoJson.string(GoJson.property(p, "name"), "name");
    Decoded<Integer> mem = GoJson.int32(GoJson.property(p, "memorymb"), "memoryMB");
    Decoded<Integer> core = GoJson.int32(GoJson.property(p, "core"), "core");
    Decoded<Integer> slices = GoJson.int32(GoJson.property(p, "slicecount"), "sliceCount");
    Decoded<Integer> instances = GoJson.int32(GoJson.property(p, "instancecount"), "instanceCount");
    for (Decoded<?> d : List.of(name, mem, core, slices, instances)) {
      if (d instanceof Decoded.Err<?> err) {
        return Decoded.err(err.error());
      }
    }
    JsonNode pls = GoJson.property(p, "placements");
    List<MigPlacement> placements = new ArrayList<>();
    if (pls != null && !pls.isNull()) {
      if (!pls.isArray()) {
        return Decoded.err("placements", pls.toString(), "placements must be an array");
      }
      int i = 0;
      for (JsonNode pl : pls.values()) {
        Decoded<MigPlacement> d = placement(pl).within("placements[" + i++ + "]");
        if (d instanceof Decoded.Err<MigPlacement> err) {
          return Decoded.err(err.error());
        }
        placements.add(((Decoded.Ok<MigPlacement>) d).value());
      }
    }
    return Decoded.ok(
        new MigProfile(
            name.orElse(""), mem.orElse(0), core.orElse(0), slices.orElse(0), instances.orElse(0), placements));
  }

  /** Decodes a placement object {@code {"start":s,"size":n}}. */
  public static Decoded<MigPlacement> placement(JsonNode pl) {
    if (!pl.isObject()) {
      return Decoded.err("", pl.toString(), "placement must be a JSON object");
    }
    Decoded<Integer> start = GoJson.int32(GoJson.property(pl, "start"), "start");
    Decoded<Integer> size = GoJson.int32(GoJson.property(pl, "size"), "size");
    return start.flatMap(s -> size.map(z -> new MigPlacement(s, z)));
  }
}
