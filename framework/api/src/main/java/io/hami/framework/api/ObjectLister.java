package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Read access to the cluster's objects of one {@link ObjectKind}, as the scheduler's informer for
 * that kind last saw them. Thread-safe; the objects are shared and must not be mutated.
 *
 * @param <T> the object's type
 */
public interface ObjectLister<T extends HasMetadata> {

  /** Every object of the kind, in no particular order. */
  List<T> list();

  /**
   * The objects of a namespaced kind in {@code namespace}, in no particular order. The default
   * filters {@link #list()}; the scheduler's listers keep an index per namespace.
   */
  default List<T> list(String namespace) {
    List<T> out = new ArrayList<>();
    for (T o : list()) {
      if (namespace.equals(o.getMetadata().getNamespace())) {
        out.add(o);
      }
    }
    return out;
  }

  /**
   * Returns the object called {@code name}, or null.
   *
   * @param namespace the namespace for a namespaced kind; ignored otherwise
   */
  @Nullable T get(@Nullable String namespace, String name);
}
