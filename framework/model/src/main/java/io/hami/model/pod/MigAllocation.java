package io.hami.model.pod;

import io.hami.model.device.MigPlacement;
import java.util.Optional;

/**
 * One dynamic MIG instance assigned to a container (v2.10 {@code hami.io/vgpu-mig-allocations}).
 *
 * @param containerIndex container entry (init containers first)
 * @param deviceIndex device position within the container entry
 * @param gpuUuid the parent GPU
 * @param profile MIG profile name, e.g. {@code 1g.10gb}
 * @param placement where the instance goes
 * @param runtime what the node agent created; empty until then
 */
public record MigAllocation(
    int containerIndex,
    int deviceIndex,
    String gpuUuid,
    String profile,
    MigPlacement placement,
    Optional<Instance> runtime) {

  /**
   * Fields the node agent adds once the instance exists (all three or none).
   *
   * @param migUuid the MIG device UUID
   * @param gpuInstanceId GPU instance ID
   * @param computeInstanceId compute instance ID
   */
  public record Instance(String migUuid, int gpuInstanceId, int computeInstanceId) {}
}
