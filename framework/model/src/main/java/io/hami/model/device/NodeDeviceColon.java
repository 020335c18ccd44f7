package io.hami.model.device;

import io.hami.model.Decoded;
import io.hami.model.internal.GoText;
import java.util.ArrayList;
import java.util.List;

/**
 * The colon/comma form of the node register annotation (NVIDIA up to v2.7; Hygon DCU and Iluvatar
 * still).
 *
 * <p>Each device is {@code id,count,devmem,devcore,type,numa,health[,index,mode]} terminated by
 * {@code :}. The writer always emits the 9-field form. The reader takes 7 or 9 fields with the
 * v2.10 rules: a 7-field record has index 0 and mode {@code hami-core}.
 */
public final class NodeDeviceColon {

  private NodeDeviceColon() {}

  /**
   * Encodes the devices in the 9-field form.
   *
   * @throws IllegalArgumentException if a text field contains {@code ,} or {@code :}, which the
   *     form cannot carry
   */
  public static String encode(List<NodeDevice> devices) {
    StringBuilder b = new StringBuilder(devices.size() * 96);
    for (NodeDevice d : devices) {
      checkText("id", d.id());
      checkText("type", d.type());
      checkText("mode", d.mode());
      b.append(d.id())
          .append(',')
          .append(d.count())
          .append(',')
          .append(d.devmem())
          .append(',')
          .append(d.devcore())
          .append(',')
          .append(d.type())
          .append(',')
          .append(d.numa())
          .append(',')
          .append(d.health())
          .append(',')
          .append(d.index())
          .append(',')
          .append(d.mode())
          .append(':');
    }
    return b.toString();
  }

  private static void checkText(String field, String v) {
    if (v.indexOf(',') >= 0 || v.indexOf(':') >= 0) {
      throw new IllegalArgumentException(
          field + " must not contain ',' or ':': " + GoText.quote(v));
    }
  }

  /**
   * Decodes the annotation value. {@code ":"} gives an empty list; a string without {@code :} is an
   * error.
   */
  public static Decoded<List<NodeDevice>> decode(String value) {
    if (value.indexOf(':') < 0) {
      return Decoded.err("", value, "node annotation missing device separator");
    }
    List<NodeDevice> out = new ArrayList<>();
    int i = 0;
    for (String piece : GoText.split(value, ':')) {
      if (piece.isEmpty()) {
        continue;
      }
      Decoded<NodeDevice> d = record(piece);
      if (d instanceof Decoded.Err<NodeDevice> err) {
        return Decoded.err(err.error().within("[" + i + "]"));
      }
      out.add(((Decoded.Ok<NodeDevice>) d).value());
      i++;
    }
    return Decoded.ok(List.copyOf(out));
  }

  private static Decoded<NodeDevice> record(String piece) {
    if (piece.indexOf(',') < 0) {
      return Decoded.err("", piece, "malformed node annotation segment: " + GoText.quote(piece));
    }
    List<String> f = GoText.split(piece, ',');
    if (f.size() != 7 && f.size() != 9) {
      return Decoded.err("", piece, "unexpected field count " + f.size() + " in node annotation");
    }
    long count = GoText.parseInt32(f.get(1));
    if (count == GoText.INVALID) {
      return bad("count", f.get(1));
    }
    long mem = GoText.parseInt32(f.get(2));
    if (mem == GoText.INVALID) {
      return bad("memory", f.get(2));
    }
    long core = GoText.parseInt32(f.get(3));
    if (core == GoText.INVALID) {
      return bad("core", f.get(3));
    }
    long numa = GoText.parseInt32(f.get(5));
    if (numa == GoText.INVALID) {
      return bad("numa", f.get(5));
    }
    Boolean health = GoText.parseBool(f.get(6));
    if (health == null) {
      return bad("health", f.get(6));
    }
    int index = 0;
    String mode = NodeDevice.MODE_HAMI_CORE;
    if (f.size() == 9) {
      long idx = GoText.parseInt32(f.get(7));
      if (idx == GoText.INVALID) {
        return bad("index", f.get(7));
      }
      if (idx < 0) {
        return Decoded.err("index", f.get(7), "index field must not be negative: " + idx);
      }
      index = (int) idx;
      mode = f.get(8);
    }
    return Decoded.ok(
        NodeDevice.of(
            f.get(0),
            index,
            (int) count,
            (int) mem,
            (int) core,
            f.get(4),
            (int) numa,
            mode,
            health));
  }

  private static Decoded<NodeDevice> bad(String field, String v) {
    return Decoded.err(field, v, "invalid " + field + " field " + GoText.quote(v));
  }
}
