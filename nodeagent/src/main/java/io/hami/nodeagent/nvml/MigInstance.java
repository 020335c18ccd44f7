package io.hami.nodeagent.nvml;

import io.hami.model.device.MigPlacement;

/**
 * A GPU instance on a MIG-enabled GPU and its compute instance.
 *
 * @param gpuInstanceId the GPU instance id
 * @param computeInstanceId the compute instance id, or -1 when the GPU instance has none
 * @param profileId the GPU instance profile id ({@link MigProfileInfo#profileId()})
 * @param placement where the GPU instance sits
 * @param migUuid the MIG device UUID, empty when there is no compute instance
 */
public record MigInstance(
    int gpuInstanceId,
    int computeInstanceId,
    int profileId,
    MigPlacement placement,
    String migUuid) {

  /** Whether the instance can be handed to a container (it has a compute instance). */
  public boolean usable() {
    return computeInstanceId >= 0 && !migUuid.isEmpty();
  }

  /** Whether the two placements share a memory slice. */
  public static boolean overlap(MigPlacement a, MigPlacement b) {
    return a.start() < b.start() + Math.max(b.size(), 1)
        && b.start() < a.start() + Math.max(a.size(), 1);
  }
}
