package io.hami.nodeagent.nvml;

/** The closest common PCIe ancestor of two GPUs, with its topology score (spec §1.4). */
public enum PcieLink {
  /** Same board (NVML_TOPOLOGY_INTERNAL). */
  SAME_BOARD(0, 60),
  /** One PCIe switch (PIX). */
  SINGLE_SWITCH(10, 50),
  /** Several PCIe switches (PXB). */
  MULTIPLE_SWITCHES(20, 40),
  /** Host bridge (PHB). */
  HOST_BRIDGE(30, 30),
  /** Same CPU / NUMA node (NODE). */
  SAME_NUMA_NODE(40, 20),
  /** Across CPUs (SYS). */
  CROSS_CPU(50, 10);

  private final int nvmlLevel;
  private final int score;

  PcieLink(int nvmlLevel, int score) {
    this.nvmlLevel = nvmlLevel;
    this.score = score;
  }

  public int score() {
    return score;
  }

  /** Maps an {@code nvmlGpuTopologyLevel_t}; unknown levels count as cross-CPU. */
  public static PcieLink fromNvmlLevel(int level) {
    for (PcieLink l : values()) {
      if (l.nvmlLevel == level) {
        return l;
      }
    }
    return CROSS_CPU;
  }
}
