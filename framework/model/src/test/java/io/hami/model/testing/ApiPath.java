package io.hami.model.testing;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A Kubernetes API request path taken apart: {@code /api/v1/namespaces/<namespace>/<resource>
 * [/<name>[/<subresource>]]} or, cluster-scoped, {@code /api/v1/<resource>[/<name>[/...]]} (and the
 * same under {@code /apis/<group>/<version>}); the query is left out.
 *
 * @param path the path without its query
 * @param namespace the namespace, or null for a cluster-scoped path
 * @param resource the resource (plural), or null when the path names none
 * @param name the object's name, or null for a collection
 * @param subresource the subresource ({@code status}, {@code binding}), or null
 */
public record ApiPath(
    String path,
    @Nullable String namespace,
    @Nullable String resource,
    @Nullable String name,
    @Nullable String subresource) {

  /** Parses a request target (path and optional query). */
  public static ApiPath parse(String target) {
    String path = target.split("\\?", 2)[0];
    String[] parts = path.split("/");
    // "", "api", version or "", "apis", group, version
    int i = parts.length > 1 && parts[1].equals("apis") ? 4 : 3;
    String namespace = null;
    if (parts.length > i + 1 && parts[i].equals("namespaces")) {
      namespace = parts[i + 1];
      i += 2;
    }
    return new ApiPath(path, namespace, at(parts, i), at(parts, i + 1), at(parts, i + 2));
  }

  private static @Nullable String at(String[] parts, int i) {
    return i < parts.length && !parts[i].isEmpty() ? parts[i] : null;
  }

  /** Whether the path names {@code subresource} of an object of {@code resource}. */
  public boolean is(String resource, @Nullable String subresource) {
    return resource.equals(this.resource)
        && name != null
        && Objects.equals(subresource, this.subresource);
  }

  /**
   * {@code pods "p"} for a path naming pod p (or one of its subresources), {@code pods} for the
   * collection, the path itself for anything else; for messages.
   */
  public String describe() {
    if (resource == null) {
      return "\"" + path + "\"";
    }
    return name == null ? resource : resource + " \"" + name + "\"";
  }
}
