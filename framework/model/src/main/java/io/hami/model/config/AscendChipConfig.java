package io.hami.model.config;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One entry of {@code vnpus.configs}: an Ascend chip model.
 *
 * @param chipName chip as the driver reports it
 * @param commonWord vendor keyword, e.g. {@code Ascend910B3}
 * @param resourceName count resource, e.g. {@code huawei.com/Ascend910B3}
 * @param resourceMemoryName memory resource, e.g. {@code huawei.com/Ascend910B3-memory}
 * @param resourceCoreName core resource; empty when none
 * @param memoryAllocatable MiB that may be handed out per chip
 * @param memoryCapacity MiB per chip
 * @param memoryFactor multiplier of the memory resource
 * @param aiCore AI cores per chip
 * @param aiCpu AI CPUs per chip
 * @param runtimeClassName runtime class set by the webhook; empty for none
 * @param overwriteEnv webhook env overwrite
 * @param superPod whether chips come in super-pod pairs (Ascend910C)
 * @param templates virtual NPU templates, smallest memory first
 */
public record AscendChipConfig(
    String chipName,
    String commonWord,
    String resourceName,
    String resourceMemoryName,
    String resourceCoreName,
    long memoryAllocatable,
    long memoryCapacity,
    int memoryFactor,
    int aiCore,
    int aiCpu,
    String runtimeClassName,
    boolean overwriteEnv,
    boolean superPod,
    List<AscendTemplate> templates) {

  public AscendChipConfig {
    templates = templates.stream().sorted(Comparator.comparingInt(AscendTemplate::memory)).toList();
  }

  /** The smallest template with at least {@code memory} MiB. */
  public Optional<AscendTemplate> templateFor(int memory) {
    for (AscendTemplate t : templates) {
      if (t.memory() >= memory) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
