package io.hami.kube;

import java.io.StringWriter;
import java.util.Collections;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.json.JsonFactory;

/**
 * JSON merge patches of an object's annotations, for {@code PatchType.JSON_MERGE}.
 *
 * <p>{@code {"metadata":{"annotations":{k:v,...},"resourceVersion":rv}}}: a null value deletes its
 * key. With a resourceVersion the server rejects the patch (409) when the object changed since it
 * was read, so a read-check-write on annotations (a lock, a handshake) cannot overwrite a change
 * made meanwhile; without one the patch always applies.
 */
public final class AnnotationPatch {
  private static final JsonFactory JSON = new JsonFactory();

  private AnnotationPatch() {}

  /** The patch setting (or, for a null value, deleting) each of {@code annotations}. */
  public static String of(
      Map<String, @Nullable String> annotations, @Nullable String resourceVersion) {
    StringWriter out = new StringWriter(64 + 64 * annotations.size());
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeName("metadata");
      g.writeStartObject();
      g.writeName("annotations");
      g.writeStartObject();
      for (Map.Entry<String, @Nullable String> e : annotations.entrySet()) {
        String v = e.getValue();
        if (v == null) {
          g.writeNullProperty(e.getKey());
        } else {
          g.writeStringProperty(e.getKey(), v);
        }
      }
      g.writeEndObject();
      if (resourceVersion != null) {
        g.writeStringProperty("resourceVersion", resourceVersion);
      }
      g.writeEndObject();
      g.writeEndObject();
    }
    return out.toString();
  }

  /** The patch setting {@code key} to {@code value}, or deleting it when {@code value} is null. */
  public static String of(String key, @Nullable String value, @Nullable String resourceVersion) {
    return of(Collections.singletonMap(key, value), resourceVersion);
  }
}
