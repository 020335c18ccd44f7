package io.hami.framework.api;

import java.util.Map;

/**
 * Sees a profile's failed scheduling attempts; registered through {@link
 * FrameworkHandle#addAttemptObserver}. Lets a layer above the framework leave its own record of an
 * attempt on the pod without the framework knowing its format.
 *
 * <p>Called on the scheduling thread, only when the pod's condition is about to be written (its
 * message changed), so it must be quick and must not block.
 */
@FunctionalInterface
public interface AttemptObserver {

  /**
   * Returns annotations to write on the pod in the same request as its {@code PodScheduled=False}
   * condition; empty for none.
   */
  Map<String, String> failed(FailedAttempt attempt);
}
