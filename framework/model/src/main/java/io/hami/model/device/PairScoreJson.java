package io.hami.model.device;

import io.hami.model.Decoded;
import io.hami.model.internal.GoJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The GPU pair-score annotation: {@code [{"uuid":"GPU-0","score":{"GPU-1":50,"GPU-2":20}}]}.
 *
 * <p>The writer sorts the score keys, as Go does for maps.
 */
public final class PairScoreJson {

  private PairScoreJson() {}

  /** Encodes the scores. */
  public static String encode(List<PairScore> scores) {
    StringBuilder b = new StringBuilder(scores.size() * 128).append('[');
    for (int i = 0; i < scores.size(); i++) {
      PairScore s = scores.get(i);
      if (i > 0) {
        b.append(',');
      }
      b.append("{\"uuid\":");
      GoJson.appendString(b, s.uuid());
      b.append(",\"score\":{");
      boolean first = true;
      for (var e : new TreeMap<>(s.score()).entrySet()) {
        if (!first) {
          b.append(',');
        }
        first = false;
        GoJson.appendString(b, e.getKey()).append(':').append(e.getValue());
      }
      b.append("}}");
    }
    return b.append(']').toString();
  }

  /** Decodes the annotation; {@code null} and {@code []} give an empty list. */
  public static Decoded<List<PairScore>> decode(String json) {
    return GoJson.parse(json).flatMap(PairScoreJson::scores);
  }

  private static Decoded<List<PairScore>> scores(Object root) {
    Decoded<List<Object>> arr = GoJson.array(root, "");
    if (arr instanceof Decoded.Err<List<Object>> e) {
      return Decoded.err(e.error());
    }
    List<Object> list = arr.orElse(List.of());
    List<PairScore> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      String at = "[" + i + "]";
      if (!(list.get(i) instanceof GoJson.Obj n)) {
        return Decoded.err(
            at, GoJson.render(list.get(i)), "pair score entry must be a JSON object");
      }
      Decoded<String> uuid = GoJson.string(n.get("uuid"), "uuid").within(at);
      if (uuid instanceof Decoded.Err<String> e) {
        return Decoded.err(e.error());
      }
      Object sc = n.get("score");
      Map<String, Integer> m = new LinkedHashMap<>();
      if (!GoJson.isNull(sc)) {
        if (!(sc instanceof GoJson.Obj so)) {
          return Decoded.err(at + ".score", GoJson.render(sc), "score must be a JSON object");
        }
        for (int k = 0; k < so.size(); k++) {
          Decoded<Integer> v = GoJson.int32(so.value(k), so.key(k)).within(at + ".score");
          if (v instanceof Decoded.Err<Integer> err) {
            return Decoded.err(err.error());
          }
          m.put(so.key(k), v.orElse(0));
        }
      }
      out.add(new PairScore(uuid.orElse(""), m));
    }
    return Decoded.ok(List.copyOf(out));
  }
}
