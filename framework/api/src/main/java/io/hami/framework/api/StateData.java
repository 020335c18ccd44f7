package io.hami.framework.api;

/**
 * A value a plugin stores in {@link CycleState}. Immutable values need nothing more; a mutable
 * value (one that PreFilter's AddPod/RemovePod change) must return a deep-enough copy from {@link
 * #copy()}.
 */
public interface StateData {

  /** Returns a copy for {@link CycleState#copy()}; the default shares this immutable value. */
  default StateData copy() {
    return this;
  }
}
