package io.hami.model.internal;

import io.hami.model.Decoded;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.SerializableString;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

/**
 * JSON with Go's {@code encoding/json} rules, on Jackson's streaming parser and generator.
 *
 * <p>Reading: a strict parse into plain values ({@link Obj}, {@link List}, {@link String}, {@link
 * Boolean}, {@link Num} or {@link #NULL}) that keeps what Go's decoder needs and a generic tree
 * loses: duplicate keys in document order (the last case-insensitive match wins), number tokens as
 * text (exact range checks), and unpaired surrogates read as U+FFFD. Typed field access follows
 * Go's decoding rules (missing or {@code null} is the zero value; a wrong type or an out-of-range
 * number is an error). Problems are values, never exceptions.
 *
 * <p>Writing: Go's encoder escapes {@code <}, {@code >}, {@code &}, U+2028 and U+2029 as
 * six-character hex escapes, in lower-case hex, and leaves {@code /} alone. {@link #FACTORY}
 * configures Jackson that way through {@link #ESCAPES}; {@link #appendString} writes the same bytes
 * straight into a {@link StringBuilder}, so that the annotation encoders build a value in one
 * buffer without a generator per value (the tests hold the two equal).
 */
public final class GoJson {

  /** Deeper documents are rejected; wire values nest at most four levels. */
  public static final int MAX_DEPTH = 32;

  /** The JSON {@code null}. */
  public static final Object NULL =
      new Object() {
        @Override
        public String toString() {
          return "null";
        }
      };

  /** Go's escapes for Jackson generators: the HTML-safe set, U+2028 and U+2029, lower-case hex. */
  public static final CharacterEscapes ESCAPES = new GoEscapes();

  /** A Jackson factory that reads and writes as Go does; immutable and shared. */
  public static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_DEPTH)
                  .maxNumberLength(Integer.MAX_VALUE)
                  .build())
          .characterEscapes(ESCAPES)
          .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
          .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
          .build();

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

    /**
     * The value of the last member whose key equals {@code lowerName} ignoring case (Go's
     * matching); null if none.
     */
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
        appendString(b, keys.get(i)).append(':');
        append(b, values.get(i));
      }
      return b.append('}').toString();
    }
  }

  private GoJson() {}

  /** Parses a whole document; trailing non-space text is an error. */
  public static Decoded<Object> parse(String json) {
    try (JsonParser p = FACTORY.createParser(json)) {
      if (p.nextToken() == null) {
        return invalid(json, "unexpected end of input", 0);
      }
      Object v = value(p);
      if (p.nextToken() != null) {
        return invalid(
            json, "unexpected text after the value", p.currentTokenLocation().getCharOffset());
      }
      return Decoded.ok(v);
    } catch (JacksonException e) {
      long at = e.getLocation() == null ? -1 : e.getLocation().getCharOffset();
      return invalid(json, e.getOriginalMessage(), at);
    }
  }

  private static Decoded<Object> invalid(String json, String message, long offset) {
    return Decoded.err("", json, "invalid JSON: " + message + " at offset " + offset);
  }

  /** The value at the parser's current token; the parser ends on that value's last token. */
  private static Object value(JsonParser p) {
    JsonToken t = p.currentToken();
    return switch (t) {
      case START_OBJECT -> object(p);
      case START_ARRAY -> array(p);
      case VALUE_STRING -> utf8Safe(p.getString());
      case VALUE_NUMBER_INT -> new Num(p.getText(), true);
      case VALUE_NUMBER_FLOAT -> new Num(p.getText(), false);
      case VALUE_TRUE -> true;
      case VALUE_FALSE -> false;
      case VALUE_NULL -> NULL;
      default -> throw new IllegalStateException("unexpected token " + t);
    };
  }

  private static Obj object(JsonParser p) {
    Obj out = new Obj();
    for (String name = p.nextName(); name != null; name = p.nextName()) {
      p.nextToken();
      out.keys.add(utf8Safe(name));
      out.values.add(value(p));
    }
    return out;
  }

  private static List<Object> array(JsonParser p) {
    List<Object> out = new ArrayList<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      out.add(value(p));
    }
    return out;
  }

  /** Go reads invalid UTF-8 as U+FFFD; an unpaired surrogate is the UTF-16 equivalent. */
  private static String utf8Safe(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        return replaceLoneSurrogates(s);
      }
    }
    return s;
  }

  private static String replaceLoneSurrogates(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        b.append(c).append(s.charAt(++i));
      } else {
        b.append(Character.isSurrogate(c) ? '\ufffd' : c);
      }
    }
    return b.toString();
  }

  /** Renders a parsed value back to compact JSON (for error messages). */
  public static String toJson(Object v) {
    return append(new StringBuilder(), v).toString();
  }

  private static StringBuilder append(StringBuilder b, Object v) {
    if (v instanceof String s) {
      return appendString(b, s);
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

  /** Writes one document through a Go-compatible generator and returns it. */
  public static String write(GeneratorWork work) {
    StringWriter out = new StringWriter(128);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      work.writeTo(g);
    }
    return out.toString();
  }

  /** What {@link #write} runs against the generator. */
  @FunctionalInterface
  public interface GeneratorWork {
    /** Writes the document. */
    void writeTo(JsonGenerator g);
  }

  /** {@code s} as a JSON string literal, exactly as Go's encoder writes it. */
  public static String quote(String s) {
    return appendString(new StringBuilder(s.length() + 2), s).toString();
  }

  /** Whether {@code v} is absent or JSON {@code null}. */
  public static boolean isNull(@Nullable Object v) {
    return v == null || v == NULL;
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
    return v instanceof Num n && n.integral() ? GoText.parseInt32(n.text()) : GoText.INVALID;
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
    return Decoded.err(
        field,
        render(v),
        field.isEmpty() ? "expected a JSON array" : field + " must be a JSON array");
  }

  /** Compact, bounded rendering of a value for error messages. */
  public static String render(@Nullable Object v) {
    if (v == null) {
      return "";
    }
    String s = toJson(v);
    return s.length() > 64 ? s.substring(0, 64) + "..." : s;
  }

  /**
   * Appends {@code s} as a JSON string literal exactly as Go's encoder writes it (HTML-safe
   * escapes).
   */
  public static StringBuilder appendString(StringBuilder b, String s) {
    b.append('"');
    int n = s.length();
    int run = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x20
          && c != '"'
          && c != '\\'
          && c != '<'
          && c != '>'
          && c != '&'
          && c != '\u2028'
          && c != '\u2029'
          && (c < 0xd800 || c > 0xdfff)) {
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
          } else if (Character.isHighSurrogate(c)
              && i + 1 < n
              && Character.isLowSurrogate(s.charAt(i + 1))) {
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

  /**
   * Go's escape table for Jackson. Jackson asks for every non-ASCII char separately, so an unpaired
   * surrogate cannot be told from half of a pair here: {@link #write} callers pass strings that are
   * valid UTF-16.
   */
  private static final class GoEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private static final SerializedString LS = new SerializedString("\\u2028");
    private static final SerializedString PS = new SerializedString("\\u2029");
    private final int[] ascii;

    GoEscapes() {
      ascii = standardAsciiEscapesForJSON();
      ascii['<'] = ESCAPE_STANDARD;
      ascii['>'] = ESCAPE_STANDARD;
      ascii['&'] = ESCAPE_STANDARD;
      // Jackson's short forms \b and \f; the wire bytes so far are \u0008 and \u000c
      ascii['\b'] = ESCAPE_STANDARD;
      ascii['\f'] = ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public @Nullable SerializableString getEscapeSequence(int ch) {
      return ch == '\u2028' ? LS : ch == '\u2029' ? PS : null;
    }
  }
}
