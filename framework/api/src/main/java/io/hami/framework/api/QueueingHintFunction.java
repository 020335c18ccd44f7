package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether one concrete event may make a pod that this plugin rejected schedulable. Called
 * on the informer thread for each such pod, so it must be cheap and must not call the API. An
 * exception counts as {@link QueueingHint#QUEUE}.
 */
@FunctionalInterface
public interface QueueingHintFunction {

  /**
   * Says whether the event may make the rejected pod schedulable.
   *
   * @param pod the rejected pod
   * @param oldObj the object before the event (null for an add)
   * @param newObj the object after the event (null for a delete)
   */
  QueueingHint hint(Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj);
}
