package io.hami.framework.api;

/**
 * Orders the active queue. A profile has exactly one; all profiles of a scheduler must use the same
 * one, because they share the queue.
 *
 * <p>Called with the queue's lock held, from any thread that adds or pops pods; it must be fast,
 * side-effect free and a consistent total order.
 */
public interface QueueSortPlugin extends Plugin {

  /** Compares two queued pods: negative when {@code a} should be scheduled before {@code b}. */
  int compare(QueuedPod a, QueuedPod b);
}
