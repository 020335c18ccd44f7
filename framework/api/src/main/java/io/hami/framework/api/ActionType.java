package io.hami.framework.api;

import java.util.EnumSet;
import java.util.Set;

/** What happened to the object of a {@link ClusterEvent}. Updates are split by what changed. */
public enum ActionType {
  ADD,
  DELETE,
  /** Node allocatable or capacity changed. */
  UPDATE_NODE_ALLOCATABLE,
  UPDATE_NODE_LABEL,
  /** Node taints or {@code spec.unschedulable} changed. */
  UPDATE_NODE_TAINT,
  UPDATE_NODE_CONDITION,
  /** Node annotations changed (device registrations, node locks). */
  UPDATE_NODE_ANNOTATION,
  UPDATE_POD_LABEL,
  /** A pod's requests went down, or it stopped running (terminal phase). */
  UPDATE_POD_SCALE_DOWN,
  UPDATE_POD_ANNOTATION,
  /** A pending pod's own spec changed (tolerations, affinity, requests, gates). */
  UPDATE_POD_SPEC,
  /** Any other change. */
  UPDATE_OTHER;

  /** Returns every update action. */
  public static Set<ActionType> updates() {
    return EnumSet.range(UPDATE_NODE_ALLOCATABLE, UPDATE_OTHER);
  }

  /** Returns every action. */
  public static Set<ActionType> all() {
    return EnumSet.allOf(ActionType.class);
  }
}
