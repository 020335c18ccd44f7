package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.hami.model.device.MigPlacement;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.DeviceUsage;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.UsageCollapse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What one pod holds on each device of its node, after collapsing its containers (protocol §6.5):
 * init containers run one after another, so they take the maximum of memory and cores with one
 * slot; app containers run together and take the sum, one slot per occurrence; the pod holds the
 * larger of the two per field and at least one slot. Dynamic MIG instances hold their placements on
 * the parent GPU (protocol §8.3), each placement once.
 */
public record PodUsage(ImmutableMap<String, Usage> byDevice) {

  public static final PodUsage EMPTY = new PodUsage(ImmutableMap.of());

  /**
   * Usage on one device.
   *
   * @param vendor the device's vendor keyword (for per-vendor namespace totals); empty when unknown
   */
  public record Usage(
      int slots, int memMiB, int cores, String vendor, ImmutableList<MigPlacement> mig) {
    public Usage(int slots, int memMiB, int cores, String vendor) {
      this(slots, memMiB, cores, vendor, ImmutableList.of());
    }

    public Usage(int slots, int memMiB, int cores) {
      this(slots, memMiB, cores, "");
    }

    /** This usage holding the given dynamic MIG placements as well. */
    public Usage withMig(List<MigPlacement> more) {
      return new Usage(
          slots,
          memMiB,
          cores,
          vendor,
          ImmutableList.<MigPlacement>builder().addAll(mig).addAll(more).build());
    }

    /** The sum of two usages of one device. */
    public Usage plus(Usage o) {
      return new Usage(
              slots + o.slots,
              memMiB + o.memMiB,
              cores + o.cores,
              vendor.isEmpty() ? o.vendor : vendor)
          .withMig(o.mig);
    }
  }

  /**
   * Collapses per-container picks.
   *
   * @param containers per container (init first), the picked devices
   * @param initCount how many entries are init containers
   * @param appOnly true once every init container has terminated successfully
   */
  public static PodUsage collapse(
      List<? extends List<DevicePick>> containers, int initCount, boolean appOnly) {
    // The protocol model's collapse, which the index also applies to annotations.
    List<List<ContainerDevice>> devices = new ArrayList<>(containers.size());
    Map<String, String> vendors = new HashMap<>();
    for (List<DevicePick> c : containers) {
      List<ContainerDevice> out = new ArrayList<>(c.size());
      for (DevicePick p : c) {
        out.add(new ContainerDevice(p.id(), p.vendor(), p.memMiB(), p.cores()));
        vendors.put(p.id(), p.vendor());
      }
      devices.add(out);
    }
    PodUsage usage =
        of(UsageCollapse.collapse(new PodDevices(devices), initCount, appOnly), vendors::get);
    Map<String, List<MigPlacement>> mig = new LinkedHashMap<>();
    for (int c = appOnly ? initCount : 0; c < containers.size(); c++) {
      for (DevicePick p : containers.get(c)) {
        if (p.mig() != null) {
          List<MigPlacement> at = mig.computeIfAbsent(p.id(), k -> new ArrayList<>());
          if (!at.contains(p.mig().placement())) {
            at.add(p.mig().placement());
          }
        }
      }
    }
    return usage.withMig(mig);
  }

  /**
   * This usage with dynamic MIG placements added per device (devices not yet present hold no slot).
   */
  public PodUsage withMig(Map<String, ? extends List<MigPlacement>> byGpu) {
    if (byGpu.isEmpty()) {
      return this;
    }
    Map<String, Usage> out = new LinkedHashMap<>(byDevice);
    byGpu.forEach((id, at) -> out.merge(id, new Usage(0, 0, 0).withMig(at), Usage::plus));
    return new PodUsage(ImmutableMap.copyOf(out));
  }

  /** From the protocol model's per-device usage, all of one vendor. */
  static PodUsage of(Map<String, DeviceUsage> collapsed, String vendor) {
    return of(collapsed, id -> vendor);
  }

  private static PodUsage of(
      Map<String, DeviceUsage> collapsed, Function<String, String> vendorOf) {
    if (collapsed.isEmpty()) {
      return EMPTY;
    }
    ImmutableMap.Builder<String, Usage> b = ImmutableMap.builderWithExpectedSize(collapsed.size());
    collapsed.forEach(
        (id, u) -> {
          String v = vendorOf.apply(id);
          b.put(id, new Usage(u.slots(), u.usedmem(), u.usedcores(), v == null ? "" : v));
        });
    return new PodUsage(b.buildOrThrow());
  }

  public boolean isEmpty() {
    return byDevice.isEmpty();
  }
}
