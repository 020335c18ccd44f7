package io.hami.framework.api;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Collects validation errors, each with the path of the offending field, so that a configuration
 * reports every problem at once ({@code profiles[0].pluginConfig[1].args.scoringStrategy.type:
 * invalid value "Foo": must be one of LeastAllocated, MostAllocated}). Not thread-safe.
 */
public final class FieldErrors {
  private final String prefix;
  private final List<String> sink;

  private FieldErrors(String prefix, List<String> sink) {
    this.prefix = prefix;
    this.sink = sink;
  }

  /** Creates an empty collector whose paths start at {@code rootPath} (may be empty). */
  public static FieldErrors at(String rootPath) {
    return new FieldErrors(rootPath, new ArrayList<>());
  }

  /** Returns a view that prefixes field paths with {@code segment}; errors go to the same list. */
  public FieldErrors child(String segment) {
    return new FieldErrors(join(prefix, segment), sink);
  }

  /** Adds an error about {@code field} having {@code value}. */
  public FieldErrors invalid(String field, @Nullable Object value, String message) {
    sink.add(join(prefix, field) + ": invalid value " + quote(value) + ": " + message);
    return this;
  }

  /** Adds an error about the missing {@code field}. */
  public FieldErrors required(String field) {
    sink.add(join(prefix, field) + ": required value");
    return this;
  }

  /** Adds a free-form error about {@code field}. */
  public FieldErrors add(String field, String message) {
    sink.add(join(prefix, field) + ": " + message);
    return this;
  }

  public boolean isEmpty() {
    return sink.isEmpty();
  }

  /** Returns the errors, in the order they were found. */
  public List<String> messages() {
    return List.copyOf(sink);
  }

  private static String join(String a, String b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return b.startsWith("[") ? a + b : a + "." + b;
  }

  private static String quote(@Nullable Object value) {
    return value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
  }
}
