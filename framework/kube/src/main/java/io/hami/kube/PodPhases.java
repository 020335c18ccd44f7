package io.hami.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import org.jspecify.annotations.Nullable;

/**
 * Which pods are done with their devices.
 *
 * <p>Two questions, kept apart because callers differ on purpose: {@link #isTerminal(Pod)} asks
 * whether the pod's containers have ended (phase Succeeded or Failed) and ignores a pending
 * deletion, since a deleted pod keeps running through its grace period; {@link #isGone(Pod)} also
 * counts a pod being deleted, for callers that stop counting a pod once its deletion is asked for.
 */
public final class PodPhases {
  public static final String SUCCEEDED = "Succeeded";
  public static final String FAILED = "Failed";

  private PodPhases() {}

  /** Whether {@code phase} is Succeeded or Failed; an unknown or absent phase is not. */
  public static boolean isTerminal(@Nullable String phase) {
    return SUCCEEDED.equals(phase) || FAILED.equals(phase);
  }

  /** Whether {@code pod}'s phase is Succeeded or Failed. */
  public static boolean isTerminal(Pod pod) {
    return isTerminal(phase(pod));
  }

  /** Whether {@code pod} has a deletion timestamp. */
  public static boolean isDeleting(Pod pod) {
    return pod.getMetadata() != null && pod.getMetadata().getDeletionTimestamp() != null;
  }

  /** Whether {@code pod} is terminal or being deleted. */
  public static boolean isGone(Pod pod) {
    return isTerminal(pod) || isDeleting(pod);
  }

  /** {@code pod}'s phase, or null when it has no status. */
  public static @Nullable String phase(Pod pod) {
    PodStatus s = pod.getStatus();
    return s == null ? null : s.getPhase();
  }
}
