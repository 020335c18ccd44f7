package io.hami.webhook;

import static java.util.Objects.requireNonNull;

import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import java.util.Locale;

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
    CorePolicy gpuCorePolicy,
    String runtimeClassName) {

  /** The scheduler name the chart and our deployment use. */
  public static final String DEFAULT_SCHEDULER_NAME = "hami-scheduler";

  /** How libvgpu enforces the core limit ({@code GPU_CORE_UTILIZATION_POLICY}). */
  public enum CorePolicy {
    /** Leave it to libvgpu and the node agent; no env is added. */
    DEFAULT,
    /** Always limit, even a container alone on its GPU. */
    FORCE,
    /** Never limit cores. */
    DISABLE;

    /** Parses {@code default}, {@code force} or {@code disable} (any case). */
    public static CorePolicy parse(String value) {
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "gpuCorePolicy must be one of default, force, disable; got \"" + value + "\"", e);
      }
    }

    /** The env value libvgpu reads. */
    public String envValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

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
        DEFAULT_SCHEDULER_NAME, true, RequestRule.NVIDIA_DEFAULTS, 1, false, CorePolicy.DEFAULT, "");
  }

  public ResourceNames names() {
    return rule.names();
  }

  public WebhookConfig withSchedulerName(String name, boolean forceOverwriteDefault) {
    return new WebhookConfig(
        name, forceOverwriteDefault, rule, defaultGpuNum, overwriteEnv, gpuCorePolicy,
        runtimeClassName);
  }

  public WebhookConfig withRule(RequestRule newRule) {
    return new WebhookConfig(
        schedulerName, forceOverwriteDefaultScheduler, newRule, defaultGpuNum, overwriteEnv,
        gpuCorePolicy, runtimeClassName);
  }

  public WebhookConfig withDefaultGpuNum(int n) {
    return new WebhookConfig(
        schedulerName, forceOverwriteDefaultScheduler, rule, n, overwriteEnv, gpuCorePolicy,
        runtimeClassName);
  }

  public WebhookConfig withOverwriteEnv(boolean on) {
    return new WebhookConfig(
        schedulerName, forceOverwriteDefaultScheduler, rule, defaultGpuNum, on, gpuCorePolicy,
        runtimeClassName);
  }

  public WebhookConfig withGpuCorePolicy(CorePolicy policy) {
    return new WebhookConfig(
        schedulerName, forceOverwriteDefaultScheduler, rule, defaultGpuNum, overwriteEnv, policy,
        runtimeClassName);
  }

  public WebhookConfig withRuntimeClassName(String name) {
    return new WebhookConfig(
        schedulerName, forceOverwriteDefaultScheduler, rule, defaultGpuNum, overwriteEnv,
        gpuCorePolicy, name);
  }
}
