package io.hami.nodeagent.wire;

import java.util.List;

/** One GPU in the register annotation, JSON form (spec §1.3). */
public record NodeRecord(
    String id, int index, int count, int devmem, int devcore, String type, int numa, String mode,
    boolean health) {

  /** Writes the array as Go does: keys in field order, zero values omitted. */
  public static String encode(List<NodeRecord> records) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < records.size(); i++) {
      NodeRecord r = records.get(i);
      if (i > 0) {
        b.append(',');
      }
      StringBuilder o = new StringBuilder();
      field(o, "id", r.id.isEmpty() ? null : Json.quote(r.id));
      field(o, "index", r.index == 0 ? null : Integer.toString(r.index));
      field(o, "count", r.count == 0 ? null : Integer.toString(r.count));
      field(o, "devmem", r.devmem == 0 ? null : Integer.toString(r.devmem));
      field(o, "devcore", r.devcore == 0 ? null : Integer.toString(r.devcore));
      field(o, "type", r.type.isEmpty() ? null : Json.quote(r.type));
      field(o, "numa", r.numa == 0 ? null : Integer.toString(r.numa));
      field(o, "mode", r.mode.isEmpty() ? null : Json.quote(r.mode));
      field(o, "health", r.health ? "true" : null);
      b.append('{').append(o).append('}');
    }
    return b.append(']').toString();
  }

  private static void field(StringBuilder o, String key, @org.jspecify.annotations.Nullable String value) {
    if (value == null) {
      return;
    }
    if (o.length() > 0) {
      o.append(',');
    }
    o.append('"').append(key).append("\":").append(value);
  }
}
