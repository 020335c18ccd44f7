package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Set;

/** A pod held at Permit. Thread-safe; any thread may allow or reject it. */
public interface WaitingPod {

  Pod pod();

  /** The node the pod was reserved on. */
  String nodeName();

  /** The Permit plugins that have not allowed the pod yet. */
  Set<String> pendingPlugins();

  /** Records that {@code pluginName} allows the pod; it proceeds once no plugin is pending. */
  void allow(String pluginName);

  /** Rejects the pod; it is unreserved and goes back to the queue as unschedulable. */
  void reject(String pluginName, String reason);
}
