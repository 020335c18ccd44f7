package io.hami.model.device;

import io.hami.model.Decoded;
import io.hami.model.internal.GoJson;
import io.hami.model.internal.GoText;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON form of the node register annotation (NVIDIA from v2.8, Ascend, AMD, Biren, Vastai,
 * vXPU).
 *
 * <p>The writer emits keys in the reference order ({@code id, index, count, devmem, devcore, type,
 * numa, mode, migProfiles, health}) and omits zero values, so its output is byte-identical to
 * HAMi's. The reader matches keys case-insensitively, ignores unknown keys, treats missing keys as
 * zero and accepts {@code null} as "no devices".
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
    return GoJson.parse(json).flatMap(NodeDeviceJson::devices);
  }

  private static Decoded<List<NodeDevice>> devices(Object root) {
    if (root == GoJson.NULL) {
      return Decoded.ok(List.of());
    }
    if (!(root instanceof List<?> list)) {
      return Decoded.err("", GoJson.render(root), "node register JSON must be an array of devices");
    }
    List<NodeDevice> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      Decoded<NodeDevice> d = device(list.get(i));
      if (d instanceof Decoded.Err<NodeDevice> err) {
        return Decoded.err(err.error().within("[" + i + "]"));
      }
      out.add(((Decoded.Ok<NodeDevice>) d).value());
    }
    return Decoded.ok(List.copyOf(out));
  }

  private static Decoded<NodeDevice> device(Object n) {
    if (!(n instanceof GoJson.Obj o)) {
      return Decoded.err("", GoJson.render(n), "device entry must be a JSON object");
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
    // one pass over the members; later duplicates win, as in Go
    for (int i = 0; i < o.size(); i++) {
      Object v = o.value(i);
      String k = GoJson.lower(o.key(i));
      switch (k) {
        case "id", "type", "mode" -> {
          String str;
          if (v instanceof String sv) {
            str = sv;
          } else if (GoJson.isNull(v)) {
            str = "";
          } else {
            return GoJson.typeError(v, k, "string");
          }
          switch (k) {
            case "id" -> id = str;
            case "type" -> type = str;
            default -> mode = str;
          }
        }
        case "index", "count", "devmem", "devcore", "numa" -> {
          long x = GoJson.int32Value(v);
          if (x == GoText.INVALID) {
            return GoJson.int32Error(v, k);
          }
          if (k.equals("index") && x < 0) {
            return Decoded.err(k, GoJson.render(v), "cannot decode " + x + " as uint");
          }
          switch (k) {
            case "index" -> index = (int) x;
            case "count" -> count = (int) x;
            case "devmem" -> devmem = (int) x;
            case "devcore" -> devcore = (int) x;
            default -> numa = (int) x;
          }
        }
        case "health" -> {
          if (v instanceof Boolean b) {
            health = b;
          } else if (GoJson.isNull(v)) {
            health = false;
          } else {
            return GoJson.typeError(v, k, "bool");
          }
        }
        case "migprofiles" -> {
          Decoded<List<MigProfile>> r = profiles(v);
          if (r instanceof Decoded.Err<List<MigProfile>> err) {
            return Decoded.err(err.error());
          }
          profiles = ((Decoded.Ok<List<MigProfile>>) r).value();
        }
        default -> {
          // unknown keys are ignored, as in Go
        }
      }
    }
    return Decoded.ok(
        new NodeDevice(id, index, count, devmem, devcore, type, numa, mode, profiles, health));
  }

  private static Decoded<List<MigProfile>> profiles(Object v) {
    Decoded<List<Object>> arr = GoJson.array(v, "migProfiles");
    if (arr instanceof Decoded.Err<List<Object>> e) {
      return Decoded.err(e.error());
    }
    List<Object> list = arr.orElse(List.of());
    List<MigProfile> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      Decoded<MigProfile> d = profile(list.get(i));
      if (d instanceof Decoded.Err<MigProfile> err) {
        return Decoded.err(err.error().within("migProfiles[" + i + "]"));
      }
      out.add(((Decoded.Ok<MigProfile>) d).value());
    }
    return Decoded.ok(out);
  }

  /** Decodes one MIG profile object. */
  public static Decoded<MigProfile> decodeProfile(String json) {
    return GoJson.parse(json).flatMap(NodeDeviceJson::profile);
  }

  private static Decoded<MigProfile> profile(Object p) {
    if (!(p instanceof GoJson.Obj o)) {
      return Decoded.err("", GoJson.render(p), "MIG profile must be a JSON object");
    }
    Decoded<String> name = GoJson.string(o.get("name"), "name");
    Decoded<Integer> mem = GoJson.int32(o.get("memorymb"), "memoryMB");
    Decoded<Integer> core = GoJson.int32(o.get("core"), "core");
    Decoded<Integer> slices = GoJson.int32(o.get("slicecount"), "sliceCount");
    // instanceCount is not carried on the wire: HAMi's reader ignores the key, whatever it holds.
    Decoded<List<Object>> pls = GoJson.array(o.get("placements"), "placements");
    for (Decoded<?> d : List.of(name, mem, core, slices, pls)) {
      if (d instanceof Decoded.Err<?> err) {
        return Decoded.err(err.error());
      }
    }
    List<Object> plist = pls.orElse(List.of());
    List<MigPlacement> placements = new ArrayList<>(plist.size());
    for (int i = 0; i < plist.size(); i++) {
      Decoded<MigPlacement> d = placement(plist.get(i));
      if (d instanceof Decoded.Err<MigPlacement> err) {
        return Decoded.err(err.error().within("placements[" + i + "]"));
      }
      placements.add(((Decoded.Ok<MigPlacement>) d).value());
    }
    return Decoded.ok(
        new MigProfile(
            name.orElse(""), mem.orElse(0), core.orElse(0), slices.orElse(0), 0, placements));
  }

  /** Decodes a parsed placement object {@code {"start":s,"size":n}}. */
  public static Decoded<MigPlacement> placement(Object pl) {
    if (!(pl instanceof GoJson.Obj o)) {
      return Decoded.err("", GoJson.render(pl), "placement must be a JSON object");
    }
    Decoded<Integer> start = GoJson.int32(o.get("start"), "start");
    Decoded<Integer> size = GoJson.int32(o.get("size"), "size");
    return start.flatMap(s -> size.map(z -> new MigPlacement(s, z)));
  }
}
