package io.hami.model.internal;

import io.hami.model.Decoded;
import io.hami.model.ProtocolError;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON helpers that match Go's {@code encoding/json}: a bounded, lenient tree reader and a string
 * escaper that writes the same bytes as Go's encoder.
 */
public final class GoJson {

  /** Deeper documents are rejected; wire values nest at most four levels. */
  public static final int MAX_DEPTH = 32;

  private static final JsonMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(MAX_DEPTH)
                          .maxNumberLength(64)
                          .maxNameLength(4096)
                          .maxStringLength(1 << 20)
                          .maxDocumentLength(8L << 20)
                          .build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private GoJson() {}

  /** Parses a document; malformed or oversized input becomes an error naming {@code field}. */
  public static Decoded<JsonNode> parse(String field, String json) {
    try {
      JsonNode node = MAPPER.readTree(json);
      if (node == null || node.isMissingNode()) {
        return Decoded.err(field, json, "invalid JSON: empty input");
      }
      return Decoded.ok(node);
    } catch (JacksonException | IllegalArgumentException | IllegalStateException e) {
      String m = e.getMessage() == null ? e.getClass().getSimpleName() : firstLine(e.getMessage());
      return Decoded.err(field, json, "invalid JSON: " + m);
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** Finds a property by case-insensitive name, the last match winning as in Go. */
  public static @Nullable JsonNode property(JsonNode object, String lowerName) {
    JsonNode found = null;
    for (var e : object.properties()) {
      if (e.getKey().length() == lowerName.length() && e.getKey().toLowerCase(Locale.ROOT).equals(lowerName)) {
        found = e.getValue();
      }
    }
    return found;
  }

  /** An int32 field: absent or null is 0; a non-integer or out-of-range number is an error. */
  public static Decoded<Integer> int32(@Nullable JsonNode n, String field) {
    if (n == null || n.isNull()) {
      return Decoded.ok(0);
    }
    if (n.isIntegralNumber() && n.canConvertToInt()) {
      return Decoded.ok(n.intValue());
    }
    return Decoded.err(field, n.toString(), "cannot decode " + abbreviate(n) + " as int32");
  }

  /** An unsigned field that must also fit Java's int. */
  public static Decoded<Integer> uint31(@Nullable JsonNode n, String field) {
    Decoded<Integer> d = int32(n, field);
    if (d instanceof Decoded.Ok<Integer> ok && ok.value() < 0) {
      return Decoded.err(field, n == null ? "" : n.toString(), "cannot decode " + ok.value() + " as uint");
    }
    return d;
  }

  /** A string field: absent or null is "". */
  public static Decoded<String> string(@Nullable JsonNode n, String field) {
    if (n == null || n.isNull()) {
      return Decoded.ok("");
    }
    if (n.isString()) {
      return Decoded.ok(n.stringValue());
    }
    return Decoded.err(field, n.toString(), "cannot decode " + abbreviate(n) + " as string");
  }

  /** A bool field: absent or null is false. */
  public static Decoded<Boolean> bool(@Nullable JsonNode n, String field) {
    if (n == null || n.isNull()) {
      return Decoded.ok(false);
    }
    if (n.isBoolean()) {
      return Decoded.ok(n.booleanValue());
    }
    return Decoded.err(field, n.toString(), "cannot decode " + abbreviate(n) + " as bool");
  }

  private static String abbreviate(JsonNode n) {
    String s = n.toString();
    return s.length() > 64 ? s.substring(0, 64) + "..." : s;
  }

  /** Appends {@code s} as a JSON string literal exactly as Go's encoder writes it (HTML-safe escapes). */
  public static StringBuilder appendString(StringBuilder b, String s) {
    b.append('"');
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '<', '>', '&', '\u2028', '\u2029' -> hex(b, c);
        default -> {
          if (c < 0x20) {
            hex(b, c);
          } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
            b.append(c).append(s.charAt(++i));
          } else if (Character.isSurrogate(c)) {
            // Go writes invalid UTF-8 as U+FFFD; a lone surrogate is the Java equivalent
            b.append("\\ufffd");
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"');
  }

  private static void hex(StringBuilder b, char c) {
    b.append("\\u");
    String h = Integer.toHexString(c);
    for (int k = h.length(); k < 4; k++) {
      b.append('0');
    }
    b.append(h);
  }
}
