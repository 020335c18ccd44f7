package io.hami.model;

/**
 * Why a wire value could not be decoded.
 *
 * @param field where the value came from, e.g. {@code devmem} or {@code [2].count}; empty for the
 *     whole value
 * @param value the offending input, shortened to at most {@value #MAX_VALUE_CHARS} characters
 * @param message a human-readable reason that already quotes the value where useful
 */
public record ProtocolError(String field, String value, String message) {

  /** Longest input echoed back in an error, so that a huge annotation does not flood logs. */
  public static final int MAX_VALUE_CHARS = 256;

  public ProtocolError {
    value = shorten(value);
  }

  /** An error about {@code field} holding {@code value}. */
  public static ProtocolError of(String field, String value, String message) {
    return new ProtocolError(field, value, message);
  }

  /**
   * The same error with {@code prefix} put in front of the field path, e.g. an annotation key or
   * list index.
   */
  public ProtocolError within(String prefix) {
    if (prefix.isEmpty()) {
      return this;
    }
    String f =
        field.isEmpty() ? prefix : field.startsWith("[") ? prefix + field : prefix + "." + field;
    return new ProtocolError(f, value, message);
  }

  @Override
  public String toString() {
    return field.isEmpty() ? message : field + ": " + message;
  }

  private static String shorten(String s) {
    if (s.length() <= MAX_VALUE_CHARS) {
      return s;
    }
    return s.substring(0, MAX_VALUE_CHARS) + "...(" + s.length() + " chars)";
  }
}
