package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.DeviceConfigFile;
import io.hami.model.config.Validated;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Arguments of the {@code vgpu} plugin ({@code pluginConfig[].args}).
 *
 * @param nodeSchedulerPolicy default node policy, {@code binpack} or {@code spread}; a pod's {@code
 *     hami.io/node-scheduler-policy} overrides it
 * @param gpuSchedulerPolicy default GPU policy ({@code spread}, {@code binpack}, {@code
 *     topology-aware}, {@code mutex}, {@code numa} or a comma chain); a pod's {@code
 *     hami.io/gpu-scheduler-policy} overrides it
 * @param scoreByVendor count the container's own requests in the device score (HAMi never does,
 *     protocol §11 trap 10)
 * @param exclusiveWholeCards treat a whole-card request without cores as {@code gpucores=100}, as
 *     the admission webhook does since v2.7, for pods that did not pass through it
 * @param resourceCountName NVIDIA count resource
 * @param resourceMemoryName NVIDIA memory resource (MiB per device)
 * @param resourceMemoryPercentageName NVIDIA memory percentage resource
 * @param resourceCoreName NVIDIA core resource
 * @param memoryFactor multiplier of the memory resource
 * @param defaultMemory MiB assumed when neither memory nor percentage is given (0: whole card)
 * @param defaultCores cores assumed when none are given
 * @param hygon also place Hygon DCU requests ({@code hygon.com/dcunum})
 * @param handshakePeriodSeconds how often the node handshake (protocol §3) runs; 0 turns it off
 * @param deviceConfigFile the device config ({@code device-config.yaml}, protocol §6.3) for the
 *     other vendors' resource names and chip models; empty for the chart defaults
 * @param cambricon also place Cambricon MLU requests ({@code cambricon.com/vmlu})
 * @param iluvatar also place the Iluvatar chips of the device config ({@code --enable-iluvatar})
 * @param ascend also place the Ascend chips of the device config ({@code --enable-ascend})
 * @param freeShareIndex let PreFilter name the nodes whose largest free GPU share cannot hold the
 *     pod, so that Filter does not run on them (a {@link FreeShareIndex}); placements and messages
 *     are the same either way, so turning it off only serves to compare
 */
public record VgpuArgs(
    String nodeSchedulerPolicy,
    String gpuSchedulerPolicy,
    boolean scoreByVendor,
    boolean exclusiveWholeCards,
    String resourceCountName,
    String resourceMemoryName,
    String resourceMemoryPercentageName,
    String resourceCoreName,
    int memoryFactor,
    int defaultMemory,
    int defaultCores,
    boolean hygon,
    int handshakePeriodSeconds,
    String deviceConfigFile,
    boolean cambricon,
    boolean iluvatar,
    boolean ascend,
    boolean freeShareIndex)
    implements PluginArgs {

  public static final VgpuArgs DEFAULTS =
      new VgpuArgs(
          "binpack",
          "spread",
          true,
          true,
          ResourceNames.NVIDIA.count(),
          ResourceNames.NVIDIA.memory(),
          ResourceNames.NVIDIA.memoryPercentage(),
          ResourceNames.NVIDIA.core(),
          1,
          0,
          0,
          false,
          15,
          "",
          true,
          false,
          false,
          true);

  private static final ImmutableSet<String> GPU_POLICY_ITEMS =
      ImmutableSet.of("binpack", "spread", "topology-aware", "mutex", "numa");

  @Override
  public void validate(FieldErrors errors) {
    String node = nodeSchedulerPolicy.trim().toLowerCase(Locale.ROOT);
    if (!node.equals("binpack") && !node.equals("spread")) {
      errors.invalid("nodeSchedulerPolicy", nodeSchedulerPolicy, "must be one of binpack, spread");
    }
    for (String item : gpuSchedulerPolicy.split(",", -1)) {
      if (!GPU_POLICY_ITEMS.contains(item.trim().toLowerCase(Locale.ROOT))) {
        errors.invalid(
            "gpuSchedulerPolicy",
            gpuSchedulerPolicy,
            "each comma-separated item must be one of binpack, spread, topology-aware, mutex, numa");
        break;
      }
    }
    if (resourceCountName.isBlank()) {
      errors.required("resourceCountName");
    }
    if (memoryFactor < 1) {
      errors.invalid("memoryFactor", memoryFactor, "must be at least 1");
    }
    if (defaultMemory < 0) {
      errors.invalid("defaultMemory", defaultMemory, "must not be negative");
    }
    if (!deviceConfigFile.isBlank()
        && DeviceConfigFile.load(Path.of(deviceConfigFile))
            instanceof Validated.Invalid<DeviceConfig> bad) {
      errors.invalid("deviceConfigFile", deviceConfigFile, bad.describe().replace('\n', ';'));
    }
    if (handshakePeriodSeconds < 0 || handshakePeriodSeconds > 3600) {
      errors.invalid(
          "handshakePeriodSeconds", handshakePeriodSeconds, "must be between 0 and 3600");
    }
    if (defaultCores < 0 || defaultCores > 100) {
      errors.invalid("defaultCores", defaultCores, "must be between 0 and 100");
    }
  }

  /** These arguments with another default GPU policy. */
  public VgpuArgs withGpuSchedulerPolicy(String policy) {
    return new VgpuArgs(
        nodeSchedulerPolicy,
        policy,
        scoreByVendor,
        exclusiveWholeCards,
        resourceCountName,
        resourceMemoryName,
        resourceMemoryPercentageName,
        resourceCoreName,
        memoryFactor,
        defaultMemory,
        defaultCores,
        hygon,
        handshakePeriodSeconds,
        deviceConfigFile,
        cambricon,
        iluvatar,
        ascend,
        freeShareIndex);
  }

  /** These arguments with the free share index on or off. */
  public VgpuArgs withFreeShareIndex(boolean on) {
    return new VgpuArgs(
        nodeSchedulerPolicy,
        gpuSchedulerPolicy,
        scoreByVendor,
        exclusiveWholeCards,
        resourceCountName,
        resourceMemoryName,
        resourceMemoryPercentageName,
        resourceCoreName,
        memoryFactor,
        defaultMemory,
        defaultCores,
        hygon,
        handshakePeriodSeconds,
        deviceConfigFile,
        cambricon,
        iluvatar,
        ascend,
        on);
  }

  /** The device config these arguments name (validated), or the chart defaults. */
  public DeviceConfig deviceConfig() {
    if (deviceConfigFile.isBlank()) {
      return DeviceConfig.DEFAULTS;
    }
    Validated<DeviceConfig> v = DeviceConfigFile.load(Path.of(deviceConfigFile));
    if (v instanceof Validated.Valid<DeviceConfig> ok) {
      return ok.value();
    }
    throw new IllegalArgumentException(
        "deviceConfigFile "
            + deviceConfigFile
            + ": "
            + ((Validated.Invalid<DeviceConfig>) v).describe());
  }

  /** The vendors these arguments place: NVIDIA, then those switched on. */
  public ImmutableList<GpuVendor> vendors() {
    return GpuVendors.of(nvidiaRule(), deviceConfig(), cambricon, hygon, iluvatar, ascend);
  }

  /** The NVIDIA request rule these arguments describe. */
  public RequestRule nvidiaRule() {
    return new RequestRule(
        new ResourceNames(
            resourceCountName,
            resourceMemoryName,
            resourceMemoryPercentageName,
            resourceCoreName,
            ResourceNames.NVIDIA.priority()),
        "NVIDIA",
        memoryFactor,
        defaultMemory,
        defaultCores);
  }
}
