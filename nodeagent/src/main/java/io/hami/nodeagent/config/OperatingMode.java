package io.hami.nodeagent.config;

import java.util.Locale;
import java.util.Optional;

/** How GPUs on this node are shared; written as the register record's {@code mode}. */
public enum OperatingMode {
  HAMI_CORE("hami-core"),
  MIG("mig"),
  MPS("mps");

  private final String wire;

  OperatingMode(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static Optional<OperatingMode> parse(String s) {
    for (OperatingMode m : values()) {
      if (m.wire.equals(s.trim().toLowerCase(Locale.ROOT))) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }
}
