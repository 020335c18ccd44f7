package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * Receives the informer events that feed the scheduler cache, so that a plugin can keep derived
 * state (for example device usage per node) up to date incrementally instead of rebuilding it per
 * pod. Register through {@link FrameworkHandle#addClusterStateListener}.
 *
 * <p>Calls are made on the cache-update thread, serialised with each other and after the cache
 * applied the change; the initial listing arrives as adds. Implementations must return quickly,
 * must not call the API, and must synchronise with their own scheduling-thread readers. Assume and
 * forget are not reported here: a plugin accounts for its own decisions in {@link
 * ReservePlugin#reserve} / {@link ReservePlugin#unreserve} and should key its state by pod UID, so
 * that the informer's later add of the bound pod replaces the reservation. Exceptions are logged
 * and do not stop delivery to other listeners.
 */
public interface ClusterStateListener {

  default void onNodeAdd(Node node) {}

  default void onNodeUpdate(Node oldNode, Node newNode) {}

  default void onNodeDelete(Node node) {}

  /** A pod was added; it may or may not be assigned to a node yet. */
  default void onPodAdd(Pod pod) {}

  default void onPodUpdate(Pod oldPod, Pod newPod) {}

  default void onPodDelete(Pod pod) {}
}
