package io.hami.plugins.nodelock;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.kube.PodPhases;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** What the pod named in a node lock is doing, as far as the lock is concerned. */
public enum HolderState {
  /** The pod does not exist (or is being deleted): nobody will ever allocate for it. */
  GONE(StaleCause.HOLDER_GONE),
  /** The pod has Succeeded or Failed. */
  TERMINAL(StaleCause.HOLDER_TERMINAL),
  /** The node agent already served the pod ({@code bind-phase=success}) but kept the lock. */
  BIND_SUCCEEDED(StaleCause.BIND_SUCCESS),
  /** The node agent failed the pod's allocation ({@code bind-phase=failed}) and kept the lock. */
  BIND_FAILED(StaleCause.BIND_FAILED),
  /** The pod was bound to another node: this lock is left over from an earlier attempt. */
  ELSEWHERE(StaleCause.HOLDER_ELSEWHERE),
  /** Bound to the locked node and waiting for Allocate: the lock must never be taken from it. */
  WAITING_ALLOCATE(null),
  /** Not bound yet: a scheduler is between taking the lock and binding. */
  BINDING(null);

  private final @Nullable StaleCause cause;

  HolderState(@Nullable StaleCause cause) {
    this.cause = cause;
  }

  /** The reason the lock is stale regardless of its age, or null when the holder still needs it. */
  public @Nullable StaleCause cause() {
    return cause;
  }

  /**
   * Classifies the holder of a lock on {@code node}.
   *
   * @param pod the holder, or null when it does not exist
   * @param bindPhaseKey the pod annotation with the bind phase ({@code hami.io/bind-phase})
   */
  public static HolderState of(@Nullable Pod pod, String node, String bindPhaseKey) {
    if (pod == null || pod.getMetadata().getDeletionTimestamp() != null) {
      return GONE;
    }
    if (PodPhases.isTerminal(pod)) {
      return TERMINAL;
    }
    Map<String, String> annos = pod.getMetadata().getAnnotations();
    String bindPhase = annos == null ? null : annos.get(bindPhaseKey);
    if ("success".equals(bindPhase)) {
      return BIND_SUCCEEDED;
    }
    if ("failed".equals(bindPhase)) {
      return BIND_FAILED;
    }
    String boundTo = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (boundTo != null && !boundTo.isEmpty()) {
      return boundTo.equals(node) ? WAITING_ALLOCATE : ELSEWHERE;
    }
    return BINDING;
  }
}
