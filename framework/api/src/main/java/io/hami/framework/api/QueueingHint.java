package io.hami.framework.api;

/** The answer of a {@link QueueingHintFunction}. */
public enum QueueingHint {
  /** The event may make the pod schedulable: move it out of the unschedulable pool. */
  QUEUE,
  /** The event cannot help this pod. */
  SKIP
}
