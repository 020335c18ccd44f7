package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import io.hami.model.pod.DeviceSelectors;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The pod's device selection annotations: {@code use-/nouse-gputype}, {@code use-/nouse-gpuuuid}
 * and {@code vgpu-mode}, read once per pod. The fields apply to NVIDIA devices; other vendors'
 * devices follow their own annotations ({@code hygon.com/use-gpuuuid}, {@code
 * hami.io/use-<CommonWord>-uuid} ...), kept in {@code vendors}.
 *
 * @param vendors the filters of other vendors by keyword; a vendor not listed is not constrained
 */
public record DeviceFilter(
    ImmutableList<String> useTypes,
    ImmutableList<String> noUseTypes,
    ImmutableSet<String> useUuids,
    ImmutableSet<String> noUseUuids,
    @Nullable String vgpuMode,
    ImmutableMap<String, DeviceFilter> vendors) {

  public static final DeviceFilter NONE =
      new DeviceFilter(
          ImmutableList.of(), ImmutableList.of(), ImmutableSet.of(), ImmutableSet.of(), null);

  public DeviceFilter(
      ImmutableList<String> useTypes,
      ImmutableList<String> noUseTypes,
      ImmutableSet<String> useUuids,
      ImmutableSet<String> noUseUuids,
      @Nullable String vgpuMode) {
    this(useTypes, noUseTypes, useUuids, noUseUuids, vgpuMode, ImmutableMap.of());
  }

  /** This filter with other vendors' filters. */
  public DeviceFilter withVendors(Map<String, DeviceFilter> byVendor) {
    return new DeviceFilter(
        useTypes, noUseTypes, useUuids, noUseUuids, vgpuMode, ImmutableMap.copyOf(byVendor));
  }

  /** The filter for a device: NVIDIA's fields, or its vendor's own filter. */
  DeviceFilter of(DeviceUsage d) {
    if (d.vendor().equals("NVIDIA")) {
      return this;
    }
    DeviceFilter f = vendors.get(d.vendor());
    return f == null ? NONE : f;
  }

  /** Builds a filter from raw annotation values (each may be null or blank: no constraint). */
  public static DeviceFilter of(
      @Nullable String useTypes,
      @Nullable String noUseTypes,
      @Nullable String useUuids,
      @Nullable String noUseUuids,
      @Nullable String vgpuMode) {
    return ofItems(
        items(useTypes), items(noUseTypes), items(useUuids), items(noUseUuids), vgpuMode);
  }

  /** Builds a filter from the annotations' items. */
  public static DeviceFilter ofItems(
      List<String> useTypes,
      List<String> noUseTypes,
      List<String> useUuids,
      List<String> noUseUuids,
      @Nullable String vgpuMode) {
    if (useTypes.isEmpty()
        && noUseTypes.isEmpty()
        && useUuids.isEmpty()
        && noUseUuids.isEmpty()
        && (vgpuMode == null || vgpuMode.isBlank())) {
      return NONE;
    }
    return new DeviceFilter(
        lower(useTypes),
        lower(noUseTypes),
        ImmutableSet.copyOf(useUuids),
        ImmutableSet.copyOf(noUseUuids),
        vgpuMode == null || vgpuMode.isBlank() ? null : vgpuMode.trim());
  }

  /** The items of a comma list annotation value, read by the protocol model. */
  public static List<String> items(@Nullable String csv) {
    return csv == null ? List.of() : DeviceSelectors.list(Map.of("v", csv), "v");
  }

  private static ImmutableList<String> lower(List<String> items) {
    ImmutableList.Builder<String> b = ImmutableList.builder();
    for (String s : items) {
      b.add(s.toLowerCase(Locale.ROOT));
    }
    return b.build();
  }

  /** Type and mode check (fit check 3, {@code CardTypeMismatch}). */
  // Identity on purpose: NONE is the no-filter sentinel, and this runs per device.
  @SuppressWarnings("ReferenceEquality")
  public boolean typeAllowed(DeviceUsage d) {
    return this == NONE || of(d).ownTypeAllowed(d);
  }

  private boolean ownTypeAllowed(DeviceUsage d) {
    if (!useTypes.isEmpty() || !noUseTypes.isEmpty()) {
      String type = d.type().toLowerCase(Locale.ROOT);
      if (!useTypes.isEmpty() && useTypes.stream().noneMatch(type::contains)) {
        return false;
      }
      if (noUseTypes.stream().anyMatch(type::contains)) {
        return false;
      }
    }
    return vgpuMode == null || vgpuMode.contains(d.mode());
  }

  /** UUID check (fit check 5, {@code CardUuidMismatch}) for the device's vendor. */
  public boolean uuidAllowed(DeviceUsage d) {
    return of(d).uuidAllowed(d.id());
  }

  /** UUID check (fit check 5, {@code CardUuidMismatch}). */
  public boolean uuidAllowed(String id) {
    if (!useUuids.isEmpty() && !useUuids.contains(id)) {
      return false;
    }
    return !noUseUuids.contains(id);
  }

  /** Whether this filter constrains nothing. */
  public boolean isEmpty() {
    return equals(NONE);
  }
}
