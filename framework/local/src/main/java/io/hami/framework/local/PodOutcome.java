package io.hami.framework.local;

import org.jspecify.annotations.Nullable;

/**
 * What happened to a pod in an in-memory cluster so far.
 *
 * @param pod {@code namespace/name}
 * @param node the node it is bound to, or null
 * @param message the last failure message (the PodScheduled condition), or null
 * @param attempts scheduling attempts so far
 * @param decisionNanos duration of the last scheduling cycle
 */
public record PodOutcome(
    String pod, @Nullable String node, @Nullable String message, int attempts, long decisionNanos) {

  public boolean isBound() {
    return node != null;
  }
}
