package io.hami.webhook;

import static java.util.Objects.requireNonNull;

import io.hami.model.config.GpuCorePolicy;
import io.hami.model.config.NvidiaConfig;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;

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
 */
public record WebhookConfig(
    String schedulerName,
    boolean forceOverwriteDefaultScheduler,
    RequestRule rule,
    int defaultGpuNum,
    boolean overwriteEnv,
    GpuCorePolicy gpuCorePolicy,
    String runtimeClassName) {

  /** The scheduler name the chart and our deployment use. */
  public static final String DEFAULT_SCHEDULER_NAME = "hami-scheduler";

  public WebhookConfig {
    requireNonNull(schedulerName, "schedulerName");
    requireNonNull(rule, "rule");
    requireNonNull(gpuCorePolicy, "gpuCorePolicy");
    requireNonNull(runtimeClassName, "runtimeClassName");
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
        "");
  }

  /**
   * The webhook settings of a device config's {@code nvidia} section.
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
        nvidia.runtimeClassName());
  }

  public ResourceNames names() {
    return rule.names();
  }

  public WebhookConfig withSchedulerName(String name, boolean forceOverwriteDefault) {
    return new WebhookConfig(
        name,
        forceOverwriteDefault,
        rule,
        defaultGpuNum,
        overwriteEnv,
        gpuCorePolicy,
        runtimeClassName);
  }

  public WebhookConfig withRule(RequestRule newRule) {
    return new WebhookConfig(
        schedulerName,
        forceOverwriteDefaultScheduler,
        newRule,
        defaultGpuNum,
        overwriteEnv,
        gpuCorePolicy,
        runtimeClassName);
  }

  public WebhookConfig withDefaultGpuNum(int n) {
    return new WebhookConfig(
        schedulerName,
        forceOverwriteDefaultScheduler,
        rule,
        n,
        overwriteEnv,
        gpuCorePolicy,
        runtimeClassName);
  }

  public WebhookConfig withOverwriteEnv(boolean on) {
    return new WebhookConfig(
        schedulerName,
        forceOverwriteDefaultScheduler,
        rule,
        defaultGpuNum,
        on,
        gpuCorePolicy,
        runtimeClassName);
  }

  public WebhookConfig withGpuCorePolicy(GpuCorePolicy policy) {
    return new WebhookConfig(
        schedulerName,
        forceOverwriteDefaultScheduler,
        rule,
        defaultGpuNum,
        overwriteEnv,
        policy,
        runtimeClassName);
  }

  public WebhookConfig withRuntimeClassName(String name) {
    return new WebhookConfig(
        schedulerName,
        forceOverwriteDefaultScheduler,
        rule,
        defaultGpuNum,
        overwriteEnv,
        gpuCorePolicy,
        name);
  }
}
