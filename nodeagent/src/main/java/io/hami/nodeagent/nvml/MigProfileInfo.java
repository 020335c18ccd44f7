package io.hami.nodeagent.nvml;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import io.hami.model.device.MigPlacement;
import java.util.List;

/**
 * A GPU instance profile a MIG-enabled GPU offers.
 *
 * @param profileId NVML's GPU instance profile id (what instances are created with)
 * @param name profile name as {@code nvidia-smi} prints it without the {@code MIG } prefix, e.g.
 *     {@code 1g.10gb}
 * @param memoryMiB memory of one instance in MiB
 * @param sliceCount GPU (compute) slices one instance takes
 * @param instanceCount the most instances of this profile the GPU can hold
 * @param placements where an instance may start, in memory slices
 */
public record MigProfileInfo(
    int profileId,
    String name,
    long memoryMiB,
    int sliceCount,
    int instanceCount,
    List<MigPlacement> placements) {

  public MigProfileInfo {
    checkArgument(!name.isEmpty(), "MIG profile name must not be empty");
    checkArgument(sliceCount > 0, "MIG profile %s: sliceCount must be > 0: %s", name, sliceCount);
    placements = ImmutableList.copyOf(placements);
  }

  /**
   * The profile's name as go-nvlib derives it: {@code <slices>g.<GB>gb}, the memory rounded to an
   * eighth of the GPU's memory; {@code suffix} marks variants ({@code +me}, {@code -me}, ...).
   */
  public static String nameOf(int sliceCount, long memoryMiB, long gpuMemoryMiB, String suffix) {
    if (gpuMemoryMiB <= 0) {
      return sliceCount + "g." + ((memoryMiB + 1023) / 1024) + "gb" + suffix;
    }
    double fraction = Math.ceil((double) memoryMiB / gpuMemoryMiB * 8) / 8;
    long gpuGb = (gpuMemoryMiB + 1023) / 1024;
    return sliceCount + "g." + Math.round(fraction * gpuGb) + "gb" + suffix;
  }
}
