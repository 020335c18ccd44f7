package io.hami.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/** Informer event handlers for the common case: act on each object's latest version. */
public final class Informers {
  private Informers() {}

  /**
   * A handler that passes each added object and each update's new version to {@code latest}, and
   * each deleted object (whether or not its final state is known) to {@code deleted}.
   */
  public static <T> ResourceEventHandler<T> onLatest(
      Consumer<? super T> latest, Consumer<? super T> deleted) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        latest.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        latest.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        deleted.accept(obj);
      }
    };
  }

  /** {@link #onLatest(Consumer, Consumer)} for callers with nothing to do on deletion. */
  public static <T> ResourceEventHandler<T> onLatest(Consumer<? super T> latest) {
    return onLatest(latest, obj -> {});
  }

  /**
   * A handler that passes each addition to {@code added}, each update whose resourceVersion changed
   * to {@code updated} (not resyncs, nor a relist's unchanged objects), and each deletion (whether
   * or not its final state is known) to {@code deleted}.
   */
  public static <T extends HasMetadata> ResourceEventHandler<T> onChange(
      Consumer<? super T> added,
      BiConsumer<? super T, ? super T> updated,
      Consumer<? super T> deleted) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        added.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        if (!Objects.equals(
            oldObj.getMetadata().getResourceVersion(), newObj.getMetadata().getResourceVersion())) {
          updated.accept(oldObj, newObj);
        }
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        deleted.accept(obj);
      }
    };
  }
}
