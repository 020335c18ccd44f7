package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FilterPlugin} whose verdict on a node depends only on a class of pods and on the node,
 * so that the framework may reuse it: for a pod whose class it has seen, on a node whose {@link
 * NodeInfo} instance is the same as then, the earlier verdict stands and Filter is not called.
 * Replicas of one workload, and every pod of one trace shape, then cost one lookup per unchanged
 * node instead of a Filter call per plugin.
 *
 * <p>What Filter reads of the node must therefore be the NodeInfo, or state the plugin keeps
 * elsewhere and reports through {@link FrameworkHandle#nodeStateChanged} on every change.
 *
 * <p>The framework reuses verdicts only when every Filter plugin of the profile implements this
 * interface and gives a class for the pod; one plugin answering null turns reuse off for that pod.
 * Error verdicts are never reused.
 */
public interface FilterEquivalence {

  /**
   * What of the pod and its cycle state this plugin's Filter reads, as a value (equals and
   * hashCode): two pods with equal classes get the same verdict on the same node. Called once per
   * scheduling cycle, after PreFilter. Null when the verdict also depends on state that changes
   * without the node changing (a namespace quota, for instance), so it must be computed each time.
   */
  @Nullable Object equivalenceClass(CycleState state, Pod pod);
}
