package io.hami.model.device;

import java.util.List;

/**
 * One physical device as a node registers it (one element of the register annotation).
 *
 * @param id device UUID, e.g. {@code GPU-8dcd427f-...}
 * @param index driver (NVML) index
 * @param count share count: how many containers may share the device
 * @param devmem memory in MiB, after memory scaling
 * @param devcore core capacity in percent units (100 × core scaling)
 * @param type model string, e.g. {@code NVIDIA-Tesla T4}
 * @param numa NUMA node
 * @param mode {@code hami-core}, {@code mig} or {@code mps}; empty when unknown
 * @param migProfiles MIG profiles offered (dynamic MIG only)
 * @param health whether the device is healthy
 */
public record NodeDevice(
    String id,
    int index,
    int count,
    int devmem,
    int devcore,
    String type,
    int numa,
    String mode,
    List<MigProfile> migProfiles,
    boolean health) {

  /** The mode written by 7-field colon records and assumed when none is given. */
  public static final String MODE_HAMI_CORE = "hami-core";

  /** Mode of a GPU split into MIG instances. */
  public static final String MODE_MIG = "mig";

  /** Mode of a GPU shared through MPS. */
  public static final String MODE_MPS = "mps";

  public NodeDevice {
    migProfiles = List.copyOf(migProfiles);
  }

  /** A device without MIG profiles. */
  public static NodeDevice of(
      String id,
      int index,
      int count,
      int devmem,
      int devcore,
      String type,
      int numa,
      String mode,
      boolean health) {
    return new NodeDevice(id, index, count, devmem, devcore, type, numa, mode, List.of(), health);
  }

  /** The same device with another health. */
  public NodeDevice withHealth(boolean h) {
    return new NodeDevice(id, index, count, devmem, devcore, type, numa, mode, migProfiles, h);
  }
}
