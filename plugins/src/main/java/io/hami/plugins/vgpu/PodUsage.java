package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one pod holds on each device of its node, after collapsing its containers (protocol §6.5):
 * init containers run one after another, so they take the maximum of memory and cores with one
 * slot; app containers run together and take the sum, one slot per occurrence; the pod holds the
 * larger of the two per field and at least one slot.
 */
public record PodUsage(ImmutableMap<String, Usage> byDevice) {

  public static final PodUsage EMPTY = new PodUsage(ImmutableMap.of());

  /** Usage on one device. */
  public record Usage(int slots, int memMiB, int cores) {}

  /**
   * Collapses per-container picks.
   *
   * @param containers per container (init first), the picked devices
   * @param initCount how many entries are init containers
   * @param appOnly true once every init container has terminated successfully
   */
  public static PodUsage collapse(
      List<? extends List<DevicePick>> containers, int initCount, boolean appOnly) {
    Map<String, int[]> acc = new LinkedHashMap<>(); // initMem, initCores, initSlots, appMem, appCores, appSlots
    for (int c = 0; c < containers.size(); c++) {
      boolean init = c < initCount;
      if (init && appOnly) {
        continue;
      }
      for (DevicePick p : containers.get(c)) {
        int[] a = acc.computeIfAbsent(p.id(), k -> new int[6]);
        if (init) {
          a[0] = Math.max(a[0], p.memMiB());
          a[1] = Math.max(a[1], p.cores());
          a[2] = 1;
        } else {
          a[3] += p.memMiB();
          a[4] += p.cores();
          a[5]++;
        }
      }
    }
    if (acc.isEmpty()) {
      return EMPTY;
    }
    ImmutableMap.Builder<String, Usage> b = ImmutableMap.builderWithExpectedSize(acc.size());
    acc.forEach(
        (id, a) ->
            b.put(
                id,
                new Usage(Math.max(Math.max(a[2], a[5]), 1), Math.max(a[0], a[3]), Math.max(a[1], a[4]))));
    return new PodUsage(b.buildOrThrow());
  }

  public boolean isEmpty() {
    return byDevice.isEmpty();
  }
}
