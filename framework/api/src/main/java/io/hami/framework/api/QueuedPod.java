package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;

/** A pod waiting in the scheduling queue, as {@link QueueSortPlugin} sees it. */
public interface QueuedPod {

  /** The latest version of the pod. */
  Pod pod();

  /** When the pod was added to the queue (or last moved back to the active queue). */
  Instant timestamp();

  /** When the pod was first enqueued; does not change across retries. */
  Instant initialTimestamp();

  /** How many scheduling attempts the pod had so far. */
  int attempts();
}
