package io.hami.model;

import java.util.Optional;

/** Values of {@link Annotations#BIND_PHASE}. */
public enum BindPhase {
  /** Written by the scheduler in Bind. */
  ALLOCATING("allocating"),
  /** Written by the node agent once every container was served. */
  SUCCESS("success"),
  /** Written by the node agent when allocation failed. */
  FAILED("failed");

  private final String wire;

  BindPhase(String wire) {
    this.wire = wire;
  }

  /** The annotation value. */
  public String wire() {
    return wire;
  }

  /** The phase for an annotation value; empty for anything else. */
  public static Optional<BindPhase> fromWire(String v) {
    for (BindPhase p : values()) {
      if (p.wire.equals(v)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
