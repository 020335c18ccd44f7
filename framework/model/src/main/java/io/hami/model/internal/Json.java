package io.hami.model.internal;

import io.hami.model.Decoded;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A small strict JSON reader with Go's {@code encoding/json} acceptance rules. It runs in linear time, limits
 * nesting to {@value #MAX_DEPTH} levels and reports problems as values, never by throwing.
 *
 * <p>Values are {@link Obj}, {@link List}, {@link String}, {@link Boolean}, {@link Num} or {@link #NULL}.
 */
public final class Json {

  /** Deeper documents are rejected; wire values nest at most four levels. */
  public static final int MAX_DEPTH = 32;

  /** The JSON {@code null}. */
  public static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "null";
    }
  };

  /**
   * A number token, kept as text so that range checks are exact.
   *
   * @param text the token
   * @param integral whether the token has no fraction or exponent
   */
  public record Num(String text, boolean integral) {

    @Override
    public String toString() {
      return text;
    }
  }

  /** An object: keys in document order, duplicates kept. */
  public static final class Obj {
    private final List<String> keys = new ArrayList<>();
    private final List<Object> values = new ArrayList<>();

    /** Number of members, duplicates included. */
    public int size() {
      return keys.size();
    }

    /** The i-th key. */
    public String key(int i) {
      return keys.get(i);
    }

    /** The i-th value. */
    public Object value(int i) {
      return values.get(i);
    }

    /** The value of the last member whose key equals {@code lowerName} ignoring case (Go's matching); null if none. */
    public @Nullable Object get(String lowerName) {
      Object found = null;
      for (int i = 0; i < keys.size(); i++) {
        String k = keys.get(i);
        if (k.length() == lowerName.length() && k.equalsIgnoreCase(lowerName)) {
          found = values.get(i);
        }
      }
      return found;
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder("{");
      for (int i = 0; i < keys.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        GoJson.appendString(b, keys.get(i)).append(':');
        Json.append(b, values.get(i));
      }
      return b.append('}').toString();
    }
  }

  /** Renders a parsed value back to compact JSON (for error messages). */
  public static String toJson(Object v) {
    return append(new StringBuilder(), v).toString();
  }

  static StringBuilder append(StringBuilder b, Object v) {
    if (v instanceof String s) {
      return GoJson.appendString(b, s);
    }
    if (v instanceof List<?> l) {
      b.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        append(b, l.get(i));
        if (b.length() > 4096) {
          return b.append("...");
        }
      }
      return b.append(']');
    }
    return b.append(v);
  }

  private final String s;
  private int pos;
  private @Nullable String error;

  private Json(String s) {
    this.s = s;
  }

  /** Parses a whole document; trailing non-space text is an error. */
  public static Decoded<Object> parse(String text) {
    Json p = new Json(text);
    p.skipSpace();
    Object v = p.value(0);
    if (v != null) {
      p.skipSpace();
      if (p.pos < text.length()) {
        p.fail("unexpected text after the value");
        v = null;
      }
    }
    if (v == null) {
      return Decoded.err("", text, "invalid JSON: " + p.error + " at offset " + p.pos);
    }
    return Decoded.ok(v);
  }

  private @Nullable Object fail(String message) {
    if (error == null) {
      error = message;
    }
    return null;
  }

  private void skipSpace() {
    while (pos < s.length()) {
      char c = s.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private @Nullable Object value(int depth) {
    if (pos >= s.length()) {
      return fail("unexpected end of input");
    }
    char c = s.charAt(pos);
    return switch (c) {
      case '{' -> depth >= MAX_DEPTH ? fail("nesting deeper than " + MAX_DEPTH) : object(depth + 1);
      case '[' -> depth >= MAX_DEPTH ? fail("nesting deeper than " + MAX_DEPTH) : array(depth + 1);
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", NULL);
      default -> c == '-' || (c >= '0' && c <= '9') ? number() : fail("unexpected character " + GoText.quote(
          String.valueOf(c)));
    };
  }

  private @Nullable Object literal(String word, Object v) {
    if (s.startsWith(word, pos)) {
      pos += word.length();
      return v;
    }
    return fail("invalid literal");
  }

  private @Nullable Object number() {
    int start = pos;
    boolean integral = true;
    if (s.charAt(pos) == '-') {
      pos++;
    }
    if (pos >= s.length()) {
      return fail("invalid number");
    }
    if (s.charAt(pos) == '0') {
      pos++;
    } else if (!digits()) {
      return fail("invalid number");
    }
    if (pos < s.length() && s.charAt(pos) == '.') {
      integral = false;
      pos++;
      if (!digits()) {
        return fail("invalid number");
      }
    }
    if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
      integral = false;
      pos++;
      if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
        pos++;
      }
      if (!digits()) {
        return fail("invalid number");
      }
    }
    return new Num(s.substring(start, pos), integral);
  }

  private boolean digits() {
    int start = pos;
    while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
      pos++;
    }
    return pos > start;
  }

  private @Nullable String string() {
    pos++; // opening quote
    StringBuilder b = null;
    int start = pos;
    while (pos < s.length()) {
      char c = s.charAt(pos);
      if (c == '"') {
        String out = b == null ? s.substring(start, pos) : b.append(s, start, pos).toString();
        pos++;
        return out;
      }
      if (c < 0x20) {
        fail("control character in string");
        return null;
      }
      if (Character.isSurrogate(c)) {
        // Go reads invalid UTF-8 as U+FFFD; an unpaired surrogate is the UTF-16 equivalent
        if (Character.isHighSurrogate(c) && pos + 1 < s.length() && Character.isLowSurrogate(s.charAt(pos + 1))) {
          pos += 2;
          continue;
        }
        if (b == null) {
          b = new StringBuilder();
        }
        b.append(s, start, pos).append('\ufffd');
        start = ++pos;
        continue;
      }
      if (c != '\\') {
        pos++;
        continue;
      }
      if (b == null) {
        b = new StringBuilder();
      }
      b.append(s, start, pos);
      pos++;
      if (pos >= s.length()) {
        break;
      }
      char e = s.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          int cp = hex4();
          if (cp < 0) {
            fail("invalid \\u escape");
            return null;
          }
          if (Character.isHighSurrogate((char) cp) && s.startsWith("\\u", pos)) {
            int save = pos;
            pos += 2;
            int lo = hex4();
            if (lo >= 0 && Character.isLowSurrogate((char) lo)) {
              b.append((char) cp).append((char) lo);
              break;
            }
            pos = save;
          }
          // Go replaces an unpaired surrogate with U+FFFD
          b.append(Character.isSurrogate((char) cp) ? '\ufffd' : (char) cp);
        }
        default -> {
          fail("invalid escape");
          return null;
        }
      }
      start = pos;
    }
    fail("unterminated string");
    return null;
  }

  private int hex4() {
    if (pos + 4 > s.length()) {
      return -1;
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
      int d = Character.digit(s.charAt(pos + i), 16);
      if (d < 0) {
        return -1;
      }
      v = v * 16 + d;
    }
    pos += 4;
    return v;
  }

  private @Nullable Object array(int depth) {
    pos++;
    List<Object> out = new ArrayList<>();
    skipSpace();
    if (pos < s.length() && s.charAt(pos) == ']') {
      pos++;
      return out;
    }
    while (true) {
      skipSpace();
      Object v = value(depth);
      if (v == null) {
        return null;
      }
      out.add(v);
      skipSpace();
      if (pos >= s.length()) {
        return fail("unterminated array");
      }
      char c = s.charAt(pos++);
      if (c == ']') {
        return out;
      }
      if (c != ',') {
        pos--;
        return fail("expected ',' or ']'");
      }
    }
  }

  private @Nullable Object object(int depth) {
    pos++;
    Obj out = new Obj();
    skipSpace();
    if (pos < s.length() && s.charAt(pos) == '}') {
      pos++;
      return out;
    }
    while (true) {
      skipSpace();
      if (pos >= s.length() || s.charAt(pos) != '"') {
        return fail("expected a string key");
      }
      String key = string();
      if (key == null) {
        return null;
      }
      skipSpace();
      if (pos >= s.length() || s.charAt(pos) != ':') {
        return fail("expected ':'");
      }
      pos++;
      skipSpace();
      Object v = value(depth);
      if (v == null) {
        return null;
      }
      out.keys.add(key);
      out.values.add(v);
      skipSpace();
      if (pos >= s.length()) {
        return fail("unterminated object");
      }
      char c = s.charAt(pos++);
      if (c == '}') {
        return out;
      }
      if (c != ',') {
        pos--;
        return fail("expected ',' or '}'");
      }
    }
  }

  /** Lower-cases ASCII keys cheaply (Go's case folding for the keys the protocol uses). */
  public static String lower(String k) {
    for (int i = 0; i < k.length(); i++) {
      char c = k.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        return k.toLowerCase(Locale.ROOT);
      }
    }
    return k;
  }
}
