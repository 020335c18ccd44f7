package io.hami.model.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * One node's entry in the node agent's per-node overrides ({@code /config/config.json}, key {@code
 * nodeconfig}). Absent fields keep the device config value.
 *
 * @param name node name the entry applies to
 * @param operatingMode {@code hami-core}, {@code mig} or {@code mps}
 * @param deviceSplitCount share count per GPU
 * @param deviceMemoryScaling memory scaling
 * @param deviceCoreScaling core scaling
 * @param preConfiguredDeviceMemory MiB for GPUs whose memory cannot be queried
 * @param libCudaLogLevel HAMi-core log level
 * @param enableNumaTopology NUMA topology on kubelet devices
 * @param migStrategy {@code none}, {@code single} or {@code mixed}
 * @param filterUuids GPUs (by UUID) not to register
 * @param filterIndexes GPUs (by index) not to register
 * @param enableGetPreferredAllocation whether kubelet asks for preferred allocations
 */
public record NodeOverride(
    String name,
    Optional<String> operatingMode,
    OptionalInt deviceSplitCount,
    OptionalDouble deviceMemoryScaling,
    OptionalDouble deviceCoreScaling,
    OptionalInt preConfiguredDeviceMemory,
    OptionalInt libCudaLogLevel,
    Optional<Boolean> enableNumaTopology,
    Optional<String> migStrategy,
    List<String> filterUuids,
    List<Integer> filterIndexes,
    boolean enableGetPreferredAllocation) {

  public NodeOverride {
    filterUuids = List.copyOf(filterUuids);
    filterIndexes = List.copyOf(filterIndexes);
  }

  /** The NVIDIA settings with this node's overrides applied. */
  public NvidiaConfig applyTo(NvidiaConfig c) {
    return new NvidiaConfig(
        c.resourceNames(),
        c.overwriteEnv(),
        c.defaultMemory(),
        c.defaultCores(),
        c.defaultGpuNum(),
        c.memoryFactor(),
        deviceSplitCount.orElse(c.deviceSplitCount()),
        deviceMemoryScaling.orElse(c.deviceMemoryScaling()),
        deviceCoreScaling.orElse(c.deviceCoreScaling()),
        preConfiguredDeviceMemory.orElse(c.preConfiguredDeviceMemory()),
        libCudaLogLevel.orElse(c.libCudaLogLevel()),
        enableNumaTopology.orElse(c.enableNumaTopology()),
        c.gpuCorePolicy(),
        c.disableCoreLimit(),
        c.runtimeClassName(),
        c.migProfileAllowlist());
  }

  /** Whether the GPU with this UUID and index must not be registered. */
  public boolean filters(String uuid, int index) {
    return filterUuids.contains(uuid) || filterIndexes.contains(index);
  }
}
