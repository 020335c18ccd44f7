package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Claims plugin-owned resources for a pod on its chosen node before the binding cycle, so that the
 * next scheduling cycle sees them taken. Runs on the scheduling thread, after the pod was assumed
 * in the cache.
 *
 * <p>If any later step fails (another Reserve, Permit, PreBind, Bind), {@link #unreserve} is called
 * for every Reserve plugin in reverse order, possibly from a binding thread.
 */
public interface ReservePlugin extends Plugin {

  /**
   * Allowed codes: {@link Code#SUCCESS}; a rejection or {@link Code#ERROR} aborts the attempt
   * (Unreserve is then called on all Reserve plugins, this one included).
   */
  Status reserve(CycleState state, Pod pod, String nodeName);

  /**
   * Releases what {@link #reserve} claimed. Must be idempotent and must tolerate a reserve that
   * failed half-way or never ran. May be called from the scheduling thread or a binding thread.
   */
  void unreserve(CycleState state, Pod pod, String nodeName);
}
