package io.hami.model.config;

import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import java.util.List;

/**
 * The {@code nvidia:} section of the device config file.
 *
 * @param resourceNames the five resource names
 * @param overwriteEnv webhook: set {@code NVIDIA_VISIBLE_DEVICES=none} on containers without a GPU
 * @param defaultMemory MiB assumed when a container gives neither memory nor percentage (0: whole
 *     card)
 * @param defaultCores cores assumed when a container gives none
 * @param defaultGpuNum webhook: GPUs set when only memory or cores are given
 * @param memoryFactor multiplier of the memory resource (≥ 1)
 * @param deviceSplitCount share count per GPU
 * @param deviceMemoryScaling devmem = floor(total × scaling); above 1 oversubscribes
 * @param deviceCoreScaling devcore = 100 × scaling
 * @param preConfiguredDeviceMemory MiB for GPUs whose memory cannot be queried
 * @param libCudaLogLevel HAMi-core log level (0 error, 1 warn, 3 info, 4 debug)
 * @param enableNumaTopology node agent: attach NUMA topology to kubelet devices
 * @param gpuCorePolicy webhook: core limit policy env
 * @param disableCoreLimit node agent: disable core limiting
 * @param runtimeClassName webhook: runtime class set on GPU pods; empty for none
 * @param migProfileAllowlist dynamic MIG profile allowlist
 */
public record NvidiaConfig(
    ResourceNames resourceNames,
    boolean overwriteEnv,
    int defaultMemory,
    int defaultCores,
    int defaultGpuNum,
    int memoryFactor,
    int deviceSplitCount,
    double deviceMemoryScaling,
    double deviceCoreScaling,
    int preConfiguredDeviceMemory,
    int libCudaLogLevel,
    boolean enableNumaTopology,
    GpuCorePolicy gpuCorePolicy,
    boolean disableCoreLimit,
    String runtimeClassName,
    List<MigAllowlistEntry> migProfileAllowlist) {

  /** The chart defaults. */
  public static final NvidiaConfig DEFAULTS =
      new NvidiaConfig(
          ResourceNames.NVIDIA,
          false,
          0,
          0,
          1,
          1,
          10,
          1.0,
          1.0,
          0,
          1,
          false,
          GpuCorePolicy.DEFAULT,
          false,
          "",
          List.of());

  public NvidiaConfig {
    migProfileAllowlist = List.copyOf(migProfileAllowlist);
  }

  /** The request derivation these settings imply. */
  public RequestRule requestRule() {
    return new RequestRule(resourceNames, "NVIDIA", memoryFactor, defaultMemory, defaultCores);
  }
}
