package io.hami.webhook;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.GpuCorePolicy;
import io.hami.model.config.NvidiaConfig;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import io.hami.model.vendor.VendorKeys;
import io.hami.model.vendor.VendorProtocol;
import io.hami.model.vendor.Vendors;
import java.util.List;

/**
 * What the webhook does, from its flags and the {@code nvidia} section of the device config
 * (hami-protocol §5.3, §6.3).
 *
 * @param schedulerName written into GPU pods' {@code spec.schedulerName}; empty to leave it
 * @param forceOverwriteDefaultScheduler whether pods naming {@code default-scheduler} are taken too
 * @param rule resource names, memory factor and defaults used to read requests
 * @param defaultGpuNum GPUs given to a container that asks for GPU memory or cores but no count; 0
 *     leaves such containers alone
 * @param overwriteEnv whether containers without GPUs get {@code NVIDIA_VISIBLE_DEVICES=none}
 * @param gpuCorePolicy exported to GPU containers as {@code GPU_CORE_UTILIZATION_POLICY}
 * @param runtimeClassName set on GPU pods that have none; empty to leave it
 * @param otherVendors the resource names of every other vendor the scheduler places (Cambricon,
 *     Hygon, the Iluvatar and Ascend chips of the device config): a pod asking for one of their
 *     counts is sent to the scheduler too
 */
public record WebhookConfig(
    String schedulerName,
    boolean forceOverwriteDefaultScheduler,
    RequestRule rule,
    int defaultGpuNum,
    boolean overwriteEnv,
    GpuCorePolicy gpuCorePolicy,
    String runtimeClassName,
    List<ResourceNames> otherVendors) {

  /** The scheduler name the chart and our deployment use. */
  public static final String DEFAULT_SCHEDULER_NAME = "hami-scheduler";

  public WebhookConfig {
    requireNonNull(schedulerName, "schedulerName");
    requireNonNull(rule, "rule");
    requireNonNull(gpuCorePolicy, "gpuCorePolicy");
    requireNonNull(runtimeClassName, "runtimeClassName");
    otherVendors = List.copyOf(otherVendors);
    if (defaultGpuNum < 0) {
      throw new IllegalArgumentException("defaultGPUNum must be >= 0: " + defaultGpuNum);
    }
    if (rule.names().count().isEmpty()) {
      throw new IllegalArgumentException("resourceCountName must not be empty");
    }
  }

  /** The chart defaults: NVIDIA names, {@code hami-scheduler}, one default GPU, nothing else. */
  public static WebhookConfig defaults() {
    return new WebhookConfig(
        DEFAULT_SCHEDULER_NAME,
        true,
        RequestRule.NVIDIA_DEFAULTS,
        1,
        false,
        GpuCorePolicy.DEFAULT,
        "",
        OTHER_VENDORS);
  }

  /** The other vendors of the chart's device config. */
  private static final ImmutableList<ResourceNames> OTHER_VENDORS =
      otherVendors(DeviceConfig.DEFAULTS);

  /**
   * The resource names of every vendor but NVIDIA that a device config describes, whether or not a
   * scheduler profile switches it on: a pod asking for one is meant for the GPU scheduler.
   */
  static ImmutableList<ResourceNames> otherVendors(DeviceConfig devices) {
    ImmutableList.Builder<ResourceNames> out = ImmutableList.builder();
    for (VendorProtocol v : Vendors.all(devices, true, true)) {
      if (!v.commonWord().equals(VendorKeys.NVIDIA.commonWord())) {
        out.add(v.requests().resourceNames());
      }
    }
    return out.build();
  }

  /** The webhook settings of a device config: its {@code nvidia} section and other vendors. */
  public static WebhookConfig from(
      DeviceConfig devices, String schedulerName, boolean forceOverwriteDefaultScheduler) {
    return from(devices.nvidia(), schedulerName, forceOverwriteDefaultScheduler)
        .withOtherVendors(otherVendors(devices));
  }

  /**
   * The webhook settings of a device config's {@code nvidia} section, with the chart's other
   * vendors.
   *
   * @param schedulerName the scheduler GPU pods are sent to; empty to leave pods' choice alone
   * @param forceOverwriteDefaultScheduler whether pods naming {@code default-scheduler} are taken
   */
  public static WebhookConfig from(
      NvidiaConfig nvidia, String schedulerName, boolean forceOverwriteDefaultScheduler) {
    return new WebhookConfig(
        schedulerName,
        forceOverwriteDefaultScheduler,
        nvidia.requestRule(),
        nvidia.defaultGpuNum(),
        nvidia.overwriteEnv(),
        nvidia.gpuCorePolicy(),
        nvidia.runtimeClassName(),
        OTHER_VENDORS);
  }

  public ResourceNames names() {
    return rule.names();
  }

  public WebhookConfig withOtherVendors(List<ResourceNames> vendors) {
    return toBuilder().otherVendors(vendors).build();
  }

  public WebhookConfig withSchedulerName(String name, boolean forceOverwriteDefault) {
    return toBuilder()
        .schedulerName(name)
        .forceOverwriteDefaultScheduler(forceOverwriteDefault)
        .build();
  }

  public WebhookConfig withRule(RequestRule newRule) {
    return toBuilder().rule(newRule).build();
  }

  public WebhookConfig withDefaultGpuNum(int n) {
    return toBuilder().defaultGpuNum(n).build();
  }

  public WebhookConfig withOverwriteEnv(boolean on) {
    return toBuilder().overwriteEnv(on).build();
  }

  public WebhookConfig withGpuCorePolicy(GpuCorePolicy policy) {
    return toBuilder().gpuCorePolicy(policy).build();
  }

  public WebhookConfig withRuntimeClassName(String name) {
    return toBuilder().runtimeClassName(name).build();
  }

  private Builder toBuilder() {
    return new Builder(this);
  }

  /** A copy of a config with some fields changed; {@link #build} validates it. */
  private static final class Builder {
    private String schedulerName;
    private boolean forceOverwriteDefaultScheduler;
    private RequestRule rule;
    private int defaultGpuNum;
    private boolean overwriteEnv;
    private GpuCorePolicy gpuCorePolicy;
    private String runtimeClassName;
    private List<ResourceNames> otherVendors;

    Builder(WebhookConfig c) {
      schedulerName = c.schedulerName;
      forceOverwriteDefaultScheduler = c.forceOverwriteDefaultScheduler;
      rule = c.rule;
      defaultGpuNum = c.defaultGpuNum;
      overwriteEnv = c.overwriteEnv;
      gpuCorePolicy = c.gpuCorePolicy;
      runtimeClassName = c.runtimeClassName;
      otherVendors = c.otherVendors;
    }

    Builder schedulerName(String v) {
      schedulerName = v;
      return this;
    }

    Builder forceOverwriteDefaultScheduler(boolean v) {
      forceOverwriteDefaultScheduler = v;
      return this;
    }

    Builder rule(RequestRule v) {
      rule = v;
      return this;
    }

    Builder defaultGpuNum(int v) {
      defaultGpuNum = v;
      return this;
    }

    Builder overwriteEnv(boolean v) {
      overwriteEnv = v;
      return this;
    }

    Builder gpuCorePolicy(GpuCorePolicy v) {
      gpuCorePolicy = v;
      return this;
    }

    Builder runtimeClassName(String v) {
      runtimeClassName = v;
      return this;
    }

    Builder otherVendors(List<ResourceNames> v) {
      otherVendors = v;
      return this;
    }

    WebhookConfig build() {
      return new WebhookConfig(
          schedulerName,
          forceOverwriteDefaultScheduler,
          rule,
          defaultGpuNum,
          overwriteEnv,
          gpuCorePolicy,
          runtimeClassName,
          otherVendors);
    }
  }
}
