package io.hami.model.device;

import java.util.List;

/**
 * A MIG profile a GPU offers (v2.10 dynamic MIG), as carried in the register annotation.
 *
 * @param name profile name, e.g. {@code 1g.5gb}
 * @param memoryMB memory of one instance in MiB
 * @param core compute share of one instance in percent
 * @param sliceCount memory slices one instance takes
 * @param instanceCount how many instances fit; not carried on the wire (decodes as 0)
 * @param placements the legal placements
 */
public record MigProfile(
    String name,
    int memoryMB,
    int core,
    int sliceCount,
    int instanceCount,
    List<MigPlacement> placements) {

  public MigProfile {
    placements = List.copyOf(placements);
  }
}
