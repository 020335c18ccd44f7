package io.hami.nodeagent.publish;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/** JSON merge patches of annotations, as the agent sends them to the API server. */
public final class MergePatch {
  private MergePatch() {}

  /**
   * {@code {"metadata":{"annotations":{...}}}}; a null value deletes the key. With a
   * resourceVersion the server rejects the patch when the object changed meanwhile.
   */
  public static String annotations(Map<String, @Nullable String> annotations, @Nullable String resourceVersion) {
    StringBuilder b = new StringBuilder("{\"metadata\":{\"annotations\":{");
    boolean first = true;
    for (Map.Entry<String, @Nullable String> e : annotations.entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      String v = e.getValue();
      b.append(quote(e.getKey())).append(':').append(v == null ? "null" : quote(v));
    }
    b.append('}');
    if (resourceVersion != null) {
      b.append(",\"resourceVersion\":").append(quote(resourceVersion));
    }
    return b.append("}}").toString();
  }

  public static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
