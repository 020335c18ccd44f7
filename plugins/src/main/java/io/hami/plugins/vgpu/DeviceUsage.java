package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import io.hami.model.device.NodeDevice;
import java.util.ArrayList;
import java.util.List;

/**
 * One device of a node: its capacity from the register annotation and the usage committed to it by
 * pods (bound, annotated or assumed). Immutable; usage changes produce a new value.
 *
 * @param id device UUID as registered
 * @param index NVML index (tie-break of the device order)
 * @param vendor vendor keyword the device belongs to ({@code NVIDIA}, {@code DCU}, ...)
 * @param type model string, e.g. {@code NVIDIA-Tesla T4}
 * @param numa NUMA node
 * @param mode {@code hami-core}, {@code mig} or {@code mps}
 * @param healthy device health from the register annotation and node health
 * @param cordoned listed in the node's {@code hami.io/device-cordon}: no new allocations
 * @param totalSlots share count
 * @param usedSlots slots held by pods
 * @param totalMemMiB memory capacity in MiB
 * @param usedMemMiB memory held by pods in MiB
 * @param totalCores core capacity (100 = one whole card)
 * @param usedCores cores held by pods
 * @param migProfiles dynamic MIG profiles the device offers (mig mode only; empty otherwise)
 * @param migUsed MIG placements already held by pods on this device
 */
public record DeviceUsage(
    String id,
    int index,
    String vendor,
    String type,
    int numa,
    String mode,
    boolean healthy,
    boolean cordoned,
    int totalSlots,
    int usedSlots,
    int totalMemMiB,
    int usedMemMiB,
    int totalCores,
    int usedCores,
    List<MigProfile> migProfiles,
    List<MigPlacement> migUsed) {

  public DeviceUsage {
    requireNonNull(id, "id");
    requireNonNull(vendor, "vendor");
    requireNonNull(type, "type");
    requireNonNull(mode, "mode");
    migProfiles = List.copyOf(migProfiles);
    migUsed = List.copyOf(migUsed);
  }

  /** A device without dynamic MIG profiles. */
  public DeviceUsage(
      String id,
      int index,
      String vendor,
      String type,
      int numa,
      String mode,
      boolean healthy,
      boolean cordoned,
      int totalSlots,
      int usedSlots,
      int totalMemMiB,
      int usedMemMiB,
      int totalCores,
      int usedCores) {
    this(
        id,
        index,
        vendor,
        type,
        numa,
        mode,
        healthy,
        cordoned,
        totalSlots,
        usedSlots,
        totalMemMiB,
        usedMemMiB,
        totalCores,
        usedCores,
        List.of(),
        List.of());
  }

  /**
   * Whether the device is in MIG mode, where the scheduler places dynamic MIG instances from its
   * profiles; a MIG-mode device without profiles takes none (HAMi refuses it rather than share it).
   */
  public boolean migMode() {
    return NodeDevice.MODE_MIG.equals(mode);
  }

  /** This device with the given MIG profiles and held placements. */
  public DeviceUsage withMig(List<MigProfile> profiles, List<MigPlacement> used) {
    return new DeviceUsage(
        id,
        index,
        vendor,
        type,
        numa,
        mode,
        healthy,
        cordoned,
        totalSlots,
        usedSlots,
        totalMemMiB,
        usedMemMiB,
        totalCores,
        usedCores,
        profiles,
        used);
  }

  /** This device with one more MIG placement held. */
  public DeviceUsage plusMig(MigPlacement placement) {
    List<MigPlacement> more = new ArrayList<>(migUsed.size() + 1);
    more.addAll(migUsed);
    more.add(placement);
    return withMig(migProfiles, more);
  }

  /** An idle device with the given capacity. */
  public static DeviceUsage idle(
      String id,
      int index,
      String vendor,
      String type,
      int numa,
      int slots,
      int memMiB,
      int cores) {
    return new DeviceUsage(
        id, index, vendor, type, numa, "hami-core", true, false, slots, 0, memMiB, 0, cores, 0);
  }

  /** This device with more (or, with negative arguments, less) usage. */
  public DeviceUsage plus(int slots, int memMiB, int cores) {
    return new DeviceUsage(
        id,
        index,
        vendor,
        type,
        numa,
        mode,
        healthy,
        cordoned,
        totalSlots,
        usedSlots + slots,
        totalMemMiB,
        usedMemMiB + memMiB,
        totalCores,
        usedCores + cores,
        migProfiles,
        migUsed);
  }

  /** This device with the given usage. */
  public DeviceUsage withUsage(int slots, int memMiB, int cores) {
    return new DeviceUsage(
        id,
        index,
        vendor,
        type,
        numa,
        mode,
        healthy,
        cordoned,
        totalSlots,
        slots,
        totalMemMiB,
        memMiB,
        totalCores,
        cores,
        migProfiles,
        migUsed);
  }

  /** This device with another health and cordon state. */
  public DeviceUsage withState(boolean healthy, boolean cordoned) {
    return new DeviceUsage(
        id,
        index,
        vendor,
        type,
        numa,
        mode,
        healthy,
        cordoned,
        totalSlots,
        usedSlots,
        totalMemMiB,
        usedMemMiB,
        totalCores,
        usedCores,
        migProfiles,
        migUsed);
  }

  public int freeSlots() {
    return totalSlots - usedSlots;
  }

  public int freeMemMiB() {
    return totalMemMiB - usedMemMiB;
  }

  public int freeCores() {
    return totalCores - usedCores;
  }

  /** Whether any of memory, cores or slots is committed beyond capacity. */
  public boolean overCommitted() {
    return usedSlots > totalSlots || usedMemMiB > totalMemMiB || usedCores > totalCores;
  }
}
