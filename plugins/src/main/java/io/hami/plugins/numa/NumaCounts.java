package io.hami.plugins.numa;

import static java.util.Objects.requireNonNull;

import io.hami.plugins.vgpu.DeviceFitter;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * For one device view, the most devices one NUMA node has that are usable for a request, by {@link
 * Usable} key: a request of n devices aligns when that count is at least n. Kept on the NodeInfo
 * the view is pinned on; the view is immutable and replaced whenever the node's usage changes, so a
 * count stands while its view is the same object.
 *
 * <p>Immutable: {@link #with} returns a copy, so that a count read on another thread is complete.
 * At most {@link #KEPT} keys, the most recent first.
 */
final class NumaCounts {

  /** Keys kept per view: the shapes of recent multi-device requests. */
  static final int KEPT = 4;

  /** {@link #get}'s answer when nothing is kept for the key. */
  static final int NOT_KEPT = -1;

  /**
   * What decides whether a device is usable for one device of a request ({@link
   * DeviceFitter#usable}): the request with its device count left out, and the pod's device filter
   * and GPU policy.
   */
  record Usable(VendorRequest one, PodGpuOptions opts) {
    Usable {
      requireNonNull(one, "one");
      requireNonNull(opts, "opts");
    }

    static Usable of(VendorRequest q, PodGpuOptions opts) {
      VendorRequest one = new VendorRequest(q.vendor(), 1, q.memMiB(), q.memPercent(), q.cores());
      return new Usable(
          one, PodGpuOptions.DEFAULT.withFilter(opts.filter()).withGpuPolicy(opts.gpuPolicy()));
    }

    boolean test(DeviceUsage d) {
      return DeviceFitter.usable(d, one, opts);
    }
  }

  static final NumaCounts NONE = new NumaCounts(null, new Usable[0], new int[0]);

  private final @Nullable NodeDevices view;
  private final Usable[] keys;
  private final int[] counts;

  private NumaCounts(@Nullable NodeDevices view, Usable[] keys, int[] counts) {
    this.view = view;
    this.keys = keys;
    this.counts = counts;
  }

  /** The count kept for the key on this very view, or {@link #NOT_KEPT}. */
  int get(NodeDevices v, Usable key) {
    if (v != view) {
      return NOT_KEPT;
    }
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] == key || keys[i].equals(key)) {
        return counts[i];
      }
    }
    return NOT_KEPT;
  }

  /**
   * A copy keeping {@code count} for the key on {@code v}; the counts of another view are dropped.
   */
  NumaCounts with(NodeDevices v, Usable key, int count) {
    int kept = v == view ? Math.min(keys.length, KEPT - 1) : 0;
    Usable[] k = new Usable[kept + 1];
    int[] c = new int[kept + 1];
    k[0] = key;
    c[0] = count;
    System.arraycopy(keys, 0, k, 1, kept);
    System.arraycopy(counts, 0, c, 1, kept);
    return new NumaCounts(v, k, c);
  }

  /** The most devices of the view one NUMA node has that are usable for the key. */
  static int mostOnOneNuma(NodeDevices v, Usable key) {
    List<DeviceUsage> devices = v.devices();
    if (devices.size() > Long.SIZE) {
      return mostByMap(devices, key);
    }
    // A bit set of the usable devices: no map per node for the usual handful of devices.
    long usable = 0;
    int most = 0;
    for (int i = 0; i < devices.size(); i++) {
      DeviceUsage d = devices.get(i);
      if (!key.test(d)) {
        continue;
      }
      usable |= 1L << i;
      int same = 0;
      for (long rest = usable; rest != 0; rest &= rest - 1) {
        if (devices.get(Long.numberOfTrailingZeros(rest)).numa() == d.numa()) {
          same++;
        }
      }
      most = Math.max(most, same);
    }
    return most;
  }

  private static int mostByMap(List<DeviceUsage> devices, Usable key) {
    Map<Integer, Integer> perNuma = new HashMap<>();
    int most = 0;
    for (int i = 0; i < devices.size(); i++) {
      DeviceUsage d = devices.get(i);
      if (key.test(d)) {
        most = Math.max(most, perNuma.merge(d.numa(), 1, Integer::sum));
      }
    }
    return most;
  }

  @Override
  public String toString() {
    return "NumaCounts{" + Arrays.toString(keys) + "=" + Arrays.toString(counts) + "}";
  }
}
