package io.hami.model.internal;

import io.hami.model.Decoded;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Typed field access over {@link Json} values with Go's decoding rules (missing or {@code null} is the zero value;
 * a wrong type or an out-of-range number is an error), and a string writer that produces the same bytes as Go's
 * encoder.
 */
public final class GoJson {

  private GoJson() {}

  /** Parses a document. */
  public static Decoded<Object> parse(String json) {
    return Json.parse(json);
  }

  /** Whether {@code v} is absent or JSON {@code null}. */
  public static boolean isNull(@Nullable Object v) {
    return v == null || v == Json.NULL;
  }

  /** An int32 field. */
  public static Decoded<Integer> int32(@Nullable Object v, String field) {
    long x = int32Value(v);
    return x != GoText.INVALID ? Decoded.ok((int) x) : int32Error(v, field);
  }

  /** An int32 field's value, or {@link GoText#INVALID}; absent or null is 0. */
  public static long int32Value(@Nullable Object v) {
    if (isNull(v)) {
      return 0;
    }
    return v instanceof Json.Num n && n.integral() ? GoText.parseInt32(n.text()) : GoText.INVALID;
  }

  /** The error for a value of the wrong JSON type, e.g. {@code typeError(v, "health", "bool")}. */
  public static <T> Decoded<T> typeError(@Nullable Object v, String field, String goType) {
    return Decoded.err(field, render(v), "cannot decode " + render(v) + " as " + goType);
  }

  /** The error for a value {@link #int32Value} rejected. */
  public static <T> Decoded<T> int32Error(@Nullable Object v, String field) {
    return Decoded.err(field, render(v), "cannot decode " + render(v) + " as int32");
  }

  /** An unsigned field that must also fit Java's int. */
  public static Decoded<Integer> uint31(@Nullable Object v, String field) {
    Decoded<Integer> d = int32(v, field);
    if (d instanceof Decoded.Ok<Integer> ok && ok.value() < 0) {
      return Decoded.err(field, render(v), "cannot decode " + ok.value() + " as uint");
    }
    return d;
  }

  /** A string field. */
  public static Decoded<String> string(@Nullable Object v, String field) {
    if (isNull(v)) {
      return Decoded.ok("");
    }
    if (v instanceof String s) {
      return Decoded.ok(s);
    }
    return Decoded.err(field, render(v), "cannot decode " + render(v) + " as string");
  }

  /** A bool field. */
  public static Decoded<Boolean> bool(@Nullable Object v, String field) {
    if (isNull(v)) {
      return Decoded.ok(false);
    }
    if (v instanceof Boolean b) {
      return Decoded.ok(b);
    }
    return Decoded.err(field, render(v), "cannot decode " + render(v) + " as bool");
  }

  /** An array, or an error naming {@code field}; absent or null is empty. */
  @SuppressWarnings("unchecked")
  public static Decoded<List<Object>> array(@Nullable Object v, String field) {
    if (isNull(v)) {
      return Decoded.ok(List.of());
    }
    if (v instanceof List<?> l) {
      return Decoded.ok((List<Object>) l);
    }
    return Decoded.err(field, render(v), field.isEmpty() ? "expected a JSON array" : field + " must be a JSON array");
  }

  /** Compact, bounded rendering of a value for error messages. */
  public static String render(@Nullable Object v) {
    if (v == null) {
      return "";
    }
    String s = Json.toJson(v);
    return s.length() > 64 ? s.substring(0, 64) + "..." : s;
  }

  /** Appends {@code s} as a JSON string literal exactly as Go's encoder writes it (HTML-safe escapes). */
  public static StringBuilder appendString(StringBuilder b, String s) {
    b.append('"');
    int n = s.length();
    int run = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c != '\u2028'
          && c != '\u2029' && (c < 0xd800 || c > 0xdfff)) {
        continue;
      }
      b.append(s, run, i);
      run = i + 1;
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '<', '>', '&' -> hex(b, c);
        default -> {
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            hex(b, c);
          } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
            b.append(c).append(s.charAt(++i));
            run = i + 1;
          } else if (Character.isSurrogate(c)) {
            // Go writes invalid UTF-8 as U+FFFD; a lone surrogate is the Java equivalent
            b.append("\\ufffd");
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append(s, run, n);
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
