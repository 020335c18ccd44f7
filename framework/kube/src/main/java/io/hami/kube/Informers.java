package io.hami.kube;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
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
}
