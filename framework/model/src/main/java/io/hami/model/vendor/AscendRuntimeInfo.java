package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.internal.GoJson;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * One element of the Ascend runtime annotation {@code huawei.com/<CommonWord>}:
 * {@code [{"UUID":"…","temp":"vir05_1c_16g","memory":16384,"core":5}]} ({@code temp} only in template mode).
 *
 * @param uuid NPU
 * @param template template name; empty in soft-split mode
 * @param memory MiB
 * @param core AI cores
 */
public record AscendRuntimeInfo(String uuid, String template, int memory, int core) {

  /** Encodes a list. */
  public static String encode(List<AscendRuntimeInfo> infos) {
    StringBuilder b = new StringBuilder().append('[');
    for (int i = 0; i < infos.size(); i++) {
      AscendRuntimeInfo r = infos.get(i);
      if (i > 0) {
        b.append(',');
      }
      b.append("{\"UUID\":");
      GoJson.appendString(b, r.uuid());
      if (!r.template().isEmpty()) {
        b.append(",\"temp\":");
        GoJson.appendString(b, r.template());
      }
      b.append(",\"memory\":").append(r.memory()).append(",\"core\":").append(r.core()).append('}');
    }
    return b.append(']').toString();
  }

  /** Decodes a list. */
  public static Decoded<List<AscendRuntimeInfo>> decode(String json) {
    return GoJson.parse("", json).flatMap(root -> {
      if (root.isNull()) {
        return Decoded.ok(List.of());
      }
      if (!root.isArray()) {
        return Decoded.err("", root.toString(), "Ascend runtime info must be a JSON array");
      }
      List<AscendRuntimeInfo> out = new ArrayList<>();
      int i = 0;
      for (JsonNode n : root.values()) {
        String at = "[" + i++ + "]";
        if (!n.isObject()) {
          return Decoded.err(at, n.toString(), "entry must be a JSON object");
        }
        Decoded<String> uuid = GoJson.string(GoJson.property(n, "uuid"), "UUID").within(at);
        Decoded<String> temp = GoJson.string(GoJson.property(n, "temp"), "temp").within(at);
        Decoded<Integer> mem = GoJson.int32(GoJson.property(n, "memory"), "memory").within(at);
        Decoded<Integer> core = GoJson.int32(GoJson.property(n, "core"), "core").within(at);
        for (Decoded<?> d : List.of(uuid, temp, mem, core)) {
          if (d instanceof Decoded.Err<?> e) {
            return Decoded.err(e.error());
          }
        }
        out.add(new AscendRuntimeInfo(uuid.orElse(""), temp.orElse(""), mem.orElse(0), core.orElse(0)));
      }
      return Decoded.ok(List.copyOf(out));
    });
  }
}
