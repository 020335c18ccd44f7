package io.hami.model.config;

/**
 * A virtual NPU template.
 *
 * @param name template name, e.g. {@code vir05_1c_16g}
 * @param memory MiB
 * @param aiCore AI cores
 * @param aiCpu AI CPUs
 */
public record AscendTemplate(String name, int memory, int aiCore, int aiCpu) {}
