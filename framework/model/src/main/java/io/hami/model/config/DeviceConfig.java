package io.hami.model.config;

import java.util.List;

/**
 * The device config file shared by the scheduler and the node agent ({@code device-config.yaml}),
 * after defaults. Sections of vendors this model does not cover are accepted and ignored.
 *
 * @param nvidia NVIDIA settings
 * @param cambricon Cambricon MLU settings
 * @param hygon Hygon DCU settings
 * @param iluvatars Iluvatar chip models
 * @param vnpus Ascend chip models
 */
public record DeviceConfig(
    NvidiaConfig nvidia,
    CambriconConfig cambricon,
    HygonConfig hygon,
    List<IluvatarConfig> iluvatars,
    AscendConfig vnpus) {

  /** Everything at its default (what an empty file gives). */
  public static final DeviceConfig DEFAULTS =
      new DeviceConfig(
          NvidiaConfig.DEFAULTS,
          CambriconConfig.DEFAULTS,
          HygonConfig.DEFAULTS,
          List.of(),
          AscendConfig.DEFAULTS);

  public DeviceConfig {
    iluvatars = List.copyOf(iluvatars);
  }
}
