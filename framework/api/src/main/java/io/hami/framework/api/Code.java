package io.hami.framework.api;

/** The outcome class of a plugin call. Each constant documents what the runtime does with it. */
public enum Code {
  /** The plugin ran and has no objection. */
  SUCCESS,
  /**
   * An unexpected failure (a bug, an outage, a malformed object). The cycle stops and the pod goes
   * to the backoff queue. Never use it for an ordinary rejection.
   */
  ERROR,
  /**
   * The pod does not fit this node now, but could after a cluster event (another pod leaves, the
   * node changes) or after preemption. The pod waits in the unschedulable pool until an event that
   * the rejecting plugin registered passes its hint.
   */
  UNSCHEDULABLE,
  /**
   * The pod cannot fit this node and preemption on the node would not help (a missing label, a
   * taint, a node that is too small). Otherwise handled as {@link #UNSCHEDULABLE}.
   */
  UNSCHEDULABLE_AND_UNRESOLVABLE,
  /** Only from {@link PermitPlugin}: hold the pod until it is allowed, rejected or times out. */
  WAIT,
  /**
   * From PreFilter: skip this plugin's Filter for this pod. From PreScore: skip its Score. From
   * Bind: this plugin does not bind the pod; try the next binder.
   */
  SKIP;

  /** Returns whether the node (or the pod, for non-node points) was rejected as unfit. */
  public boolean isRejected() {
    return this == UNSCHEDULABLE || this == UNSCHEDULABLE_AND_UNRESOLVABLE;
  }

  /** Returns whether a pod that ends its cycle with this code goes to backoff directly. */
  public boolean triggersBackoff() {
    return this == ERROR;
  }

  /** Returns whether this code lets the cycle go on (success or skip). */
  public boolean isSuccessOrSkip() {
    return this == SUCCESS || this == SKIP;
  }
}
