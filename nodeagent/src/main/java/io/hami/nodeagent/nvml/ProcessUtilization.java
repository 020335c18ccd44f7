package io.hami.nodeagent.nvml;

/**
 * One NVML per-process utilisation sample ({@code nvmlProcessUtilizationSample_t}).
 *
 * @param pid the process, as the host sees it
 * @param timestampMicros CPU time of the sample, microseconds since the epoch
 * @param smUtil SM (kernel) utilisation in percent
 * @param memUtil frame-buffer bandwidth utilisation in percent
 */
public record ProcessUtilization(int pid, long timestampMicros, int smUtil, int memUtil) {}
