package io.hami.plugins.numa;

import org.jspecify.annotations.Nullable;

/** How strongly a container's GPUs are kept on one NUMA node. */
public enum AlignmentPolicy {
  /** Prefer nodes where they can be; never reject. */
  BEST_EFFORT("BestEffort"),
  /** Reject nodes where they cannot be. */
  SINGLE_NUMA_NODE("SingleNumaNode"),
  /** Ignore NUMA (pods' {@code nvidia.com/numa-bind} is still honoured by {@code vgpu}). */
  NONE("None");

  private final String configName;

  AlignmentPolicy(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }

  public static @Nullable AlignmentPolicy parse(String s) {
    for (AlignmentPolicy p : values()) {
      if (p.configName.equalsIgnoreCase(s.trim())) {
        return p;
      }
    }
    return null;
  }
}
