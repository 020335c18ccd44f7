package io.hami.nodeagent.publish;

import io.hami.model.JsonStrings;
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
      b.append(JsonStrings.quote(e.getKey())).append(':').append(v == null ? "null" : JsonStrings.quote(v));
    }
    b.append('}');
    if (resourceVersion != null) {
      b.append(",\"resourceVersion\":").append(JsonStrings.quote(resourceVersion));
    }
    return b.append("}}").toString();
  }
}
