package io.hami.framework.api;

/** The kind of object a {@link ClusterEvent} is about. */
public enum EventResource {
  /** A node. */
  NODE,
  /** A pod bound (or assumed) to a node. */
  ASSIGNED_POD,
  /** A pod waiting to be scheduled (the pending pod itself, or another one). */
  UNSCHEDULED_POD,
  /** Matches every resource; only for registration. */
  WILDCARD
}
