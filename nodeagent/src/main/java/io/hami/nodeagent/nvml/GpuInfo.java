package io.hami.nodeagent.nvml;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * One physical GPU as discovered.
 *
 * @param index NVML index
 * @param uuid NVML UUID, e.g. {@code GPU-8dcd427f-...}
 * @param model NVML product name, e.g. {@code NVIDIA H200}
 * @param memoryMiB total memory in MiB, or -1 when the device does not report it (unified memory)
 * @param pciBusId PCI bus id as NVML prints it, e.g. {@code 00000000:3B:00.0}
 * @param numaNode NUMA node of the PCI device (0 when unknown)
 * @param migEnabled whether MIG mode is currently enabled
 */
public record GpuInfo(
    int index,
    String uuid,
    String model,
    long memoryMiB,
    String pciBusId,
    int numaNode,
    boolean migEnabled) {

  public GpuInfo {
    checkArgument(index >= 0, "index must be >= 0: %s", index);
    checkArgument(!uuid.isEmpty(), "uuid must not be empty");
    checkArgument(numaNode >= 0, "numaNode must be >= 0: %s", numaNode);
  }
}
