package io.hami.model.device;

import io.hami.model.Decoded;
import io.hami.model.internal.GoJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

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
    return GoJson.parse("", json).flatMap(PairScoreJson::scores);
  }

  private static Decoded<List<PairScore>> scores(JsonNode root) {
    if (root.isNull()) {
      return Decoded.ok(List.of());
    }
    if (!root.isArray()) {
      return Decoded.err("", root.toString(), "pair scores must be a JSON array");
    }
    List<PairScore> out = new ArrayList<>();
    int i = 0;
    for (JsonNode n : root.values()) {
      String at = "[" + i++ + "]";
      if (!n.isObject()) {
        return Decoded.err(at, n.toString(), "pair score entry must be a JSON object");
      }
      Decoded<String> uuid = GoJson.string(GoJson.property(n, "uuid"), "uuid").within(at);
      if (uuid instanceof Decoded.Err<String> e) {
        return Decoded.err(e.error());
      }
      JsonNode sc = GoJson.property(n, "score");
      Map<String, Integer> m = new LinkedHashMap<>();
      if (sc != null && !sc.isNull()) {
        if (!sc.isObject()) {
          return Decoded.err(at + ".score", sc.toString(), "score must be a JSON object");
        }
        for (var e : sc.properties()) {
          Decoded<Integer> v = GoJson.int32(e.getValue(), e.getKey()).within(at + ".score");
          if (v instanceof Decoded.Err<Integer> err) {
            return Decoded.err(err.error());
          }
          m.put(e.getKey(), v.orElse(0));
        }
      }
      out.add(new PairScore(uuid.orElse(""), m));
    }
    return Decoded.ok(List.copyOf(out));
  }
}
