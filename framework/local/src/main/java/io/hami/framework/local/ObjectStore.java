package io.hami.framework.local;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.hami.framework.api.ObjectKind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The in-memory cluster's other objects (volumes, namespaces, workloads...), by kind, namespace and
 * name; a namespaced object without a namespace is in {@code default}.
 */
final class ObjectStore {
  private final Map<String, HasMetadata> objects = new LinkedHashMap<>();

  static @Nullable String namespace(ObjectKind<?> kind, @Nullable String namespace) {
    return kind.namespaced() && namespace == null ? "default" : namespace;
  }

  private static String key(ObjectKind<?> kind, @Nullable String namespace, String name) {
    return kind + ":" + kind.key(namespace(kind, namespace), name);
  }

  /** Stores {@code obj} (its namespace already set) and returns the one it replaces, if any. */
  @Nullable HasMetadata put(ObjectKind<?> kind, HasMetadata obj) {
    return objects.put(kind + ":" + kind.key(obj), obj);
  }

  @Nullable HasMetadata get(ObjectKind<?> kind, @Nullable String namespace, String name) {
    return objects.get(key(kind, namespace, name));
  }

  /** The stored object with the kind, namespace and name of {@code obj}. */
  @Nullable HasMetadata get(HasMetadata obj) {
    return get(ObjectKind.of(obj), obj.getMetadata().getNamespace(), obj.getMetadata().getName());
  }

  @Nullable HasMetadata remove(HasMetadata obj) {
    return objects.remove(
        key(ObjectKind.of(obj), obj.getMetadata().getNamespace(), obj.getMetadata().getName()));
  }

  List<HasMetadata> values() {
    return List.copyOf(objects.values());
  }
}
