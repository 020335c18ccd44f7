package io.hami.framework.runtime;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The scheduler's copy of the cluster objects plugins read besides nodes and pods, one store per
 * {@link ObjectKind}, fed by informers (or an in-memory cluster) through the {@link
 * ClusterEventHandler}. Remembers which kinds plugins asked for, so that only those are watched.
 */
public final class ClusterObjects {
  private final Map<ObjectKind<?>, Map<String, HasMetadata>> stores = new ConcurrentHashMap<>();
  // Per kind, namespace to (key to object): Services of one namespace without a scan of all.
  private final Map<ObjectKind<?>, Map<String, Map<String, HasMetadata>>> byNamespace =
      new ConcurrentHashMap<>();
  private final Set<ObjectKind<?>> requested = ConcurrentHashMap.newKeySet();

  /** A lister over the store of {@code kind}; marks the kind as requested. */
  public <T extends HasMetadata> ObjectLister<T> lister(ObjectKind<T> kind) {
    requested.add(kind);
    Map<String, HasMetadata> store = store(kind);
    Map<String, Map<String, HasMetadata>> namespaces = namespaces(kind);
    return new ObjectLister<>() {
      @Override
      public ImmutableList<T> list() {
        return copy(store);
      }

      @Override
      public ImmutableList<T> list(String namespace) {
        Map<String, HasMetadata> in = namespaces.get(namespace);
        return in == null ? ImmutableList.of() : copy(in);
      }

      private ImmutableList<T> copy(Map<String, HasMetadata> objects) {
        ImmutableList.Builder<T> b = ImmutableList.builderWithExpectedSize(objects.size());
        for (HasMetadata o : objects.values()) {
          b.add(kind.type().cast(o));
        }
        return b.build();
      }

      @Override
      public @Nullable T get(@Nullable String namespace, String name) {
        HasMetadata o = store.get(kind.key(namespace, name));
        return o == null ? null : kind.type().cast(o);
      }
    };
  }

  /** The kinds some plugin asked for, in {@link ObjectKind#ALL} order. */
  public ImmutableSet<ObjectKind<?>> requestedKinds() {
    Set<ObjectKind<?>> out = new LinkedHashSet<>();
    for (ObjectKind<?> k : ObjectKind.ALL) {
      if (requested.contains(k)) {
        out.add(k);
      }
    }
    return ImmutableSet.copyOf(out);
  }

  /** Stores {@code obj} (add or update); returns the kind. */
  ObjectKind<?> put(HasMetadata obj) {
    ObjectKind<?> kind = ObjectKind.of(obj);
    String key = kind.key(obj);
    store(kind).put(key, obj);
    String ns = obj.getMetadata().getNamespace();
    if (kind.namespaced() && ns != null) {
      namespaces(kind).computeIfAbsent(ns, n -> new ConcurrentHashMap<>()).put(key, obj);
    }
    return kind;
  }

  /** Removes {@code obj}; returns the kind. */
  ObjectKind<?> remove(HasMetadata obj) {
    ObjectKind<?> kind = ObjectKind.of(obj);
    String key = kind.key(obj);
    store(kind).remove(key);
    String ns = obj.getMetadata().getNamespace();
    if (ns != null) {
      Map<String, HasMetadata> in = namespaces(kind).get(ns);
      if (in != null) {
        in.remove(key);
      }
    }
    return kind;
  }

  private Map<String, Map<String, HasMetadata>> namespaces(ObjectKind<?> kind) {
    return byNamespace.computeIfAbsent(kind, k -> new ConcurrentHashMap<>());
  }

  private Map<String, HasMetadata> store(ObjectKind<?> kind) {
    return stores.computeIfAbsent(kind, k -> new ConcurrentHashMap<>());
  }
}
