package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.internal.GoJson;
import java.util.ArrayList;
import java.util.List;

/**
 * One element of the Ascend runtime annotation {@code huawei.com/<CommonWord>}: {@code
 * [{"UUID":"…","temp":"vir05_1c_16g","memory":16384,"core":5}]} ({@code temp} only in template
 * mode).
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
    return GoJson.parse(json)
        .flatMap(
            root -> {
              Decoded<List<Object>> arr = GoJson.array(root, "");
              if (arr instanceof Decoded.Err<List<Object>> e) {
                return Decoded.err(e.error());
              }
              List<Object> list = arr.orElse(List.of());
              List<AscendRuntimeInfo> out = new ArrayList<>(list.size());
              for (int i = 0; i < list.size(); i++) {
                String at = "[" + i + "]";
                if (!(list.get(i) instanceof GoJson.Obj n)) {
                  return Decoded.err(at, GoJson.render(list.get(i)), "entry must be a JSON object");
                }
                Decoded<String> uuid = GoJson.string(n.get("uuid"), "UUID").within(at);
                Decoded<String> temp = GoJson.string(n.get("temp"), "temp").within(at);
                Decoded<Integer> mem = GoJson.int32(n.get("memory"), "memory").within(at);
                Decoded<Integer> core = GoJson.int32(n.get("core"), "core").within(at);
                for (Decoded<?> d : List.of(uuid, temp, mem, core)) {
                  if (d instanceof Decoded.Err<?> e) {
                    return Decoded.err(e.error());
                  }
                }
                out.add(
                    new AscendRuntimeInfo(
                        uuid.orElse(""), temp.orElse(""), mem.orElse(0), core.orElse(0)));
              }
              return Decoded.ok(List.copyOf(out));
            });
  }
}
