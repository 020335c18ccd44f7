package io.hami.model.config;

import java.util.List;

/**
 * The {@code vnpus:} section.
 *
 * @param hamiVnpuCore whether the HAMi soft split (instead of templates) is enabled
 * @param configs one entry per chip model
 */
public record AscendConfig(boolean hamiVnpuCore, List<AscendChipConfig> configs) {
  /** No Ascend chips. */
  public static final AscendConfig DEFAULTS = new AscendConfig(false, List.of());

  public AscendConfig {
    configs = List.copyOf(configs);
  }
}
