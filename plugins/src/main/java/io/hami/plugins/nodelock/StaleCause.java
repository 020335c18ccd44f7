package io.hami.plugins.nodelock;

import java.util.Locale;

/** Why a node lock held by someone else may be taken over. */
public enum StaleCause {
  /** Older than the lock timeout and its holder is not waiting for Allocate. */
  EXPIRED,
  /** The holder pod no longer exists. */
  HOLDER_GONE,
  /** The holder pod has Succeeded or Failed. */
  HOLDER_TERMINAL,
  /** The node agent served the holder ({@code bind-phase=success}) but kept the lock. */
  BIND_SUCCESS,
  /**
   * The node agent failed the holder's allocation ({@code bind-phase=failed}) and kept the lock.
   */
  BIND_FAILED,
  /** The holder was bound to another node. */
  HOLDER_ELSEWHERE,
  /** The value is not a lock any version of the protocol writes; no node agent can use it. */
  UNPARSEABLE;

  /** Metric label, e.g. {@code holder_gone}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
