package io.hami.model.config;

import java.util.Optional;

/** How HAMi-core enforces core limits ({@code GPU_CORE_UTILIZATION_POLICY}). */
public enum GpuCorePolicy {
  /** Limit cores as requested. */
  DEFAULT("default"),
  /** Limit cores even for a container alone on its GPU. */
  FORCE("force"),
  /** Do not limit cores. */
  DISABLE("disable");

  private final String wire;

  GpuCorePolicy(String wire) {
    this.wire = wire;
  }

  /** The config and env value. */
  public String wire() {
    return wire;
  }

  /** The policy named {@code v}, if any. */
  public static Optional<GpuCorePolicy> fromWire(String v) {
    for (GpuCorePolicy p : values()) {
      if (p.wire.equals(v)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
