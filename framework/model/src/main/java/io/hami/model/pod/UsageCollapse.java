package io.hami.model.pod;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Collapses a pod's per-container grants into per-device usage (v2.10 accounting). Init containers
 * run one at a time, so they take the maximum and one slot; app containers run together, so they
 * add up.
 */
public final class UsageCollapse {

  private UsageCollapse() {}

  /**
   * Usage per device UUID.
   *
   * @param pod the pod's allocated devices for one vendor (entries in init-first order)
   * @param initContainers number of init containers, i.e. of leading entries that belong to them
   * @param initDone whether every init container has terminated successfully (then only app usage
   *     counts)
   */
  public static Map<String, DeviceUsage> collapse(
      PodDevices pod, int initContainers, boolean initDone) {
    Map<String, int[]> init = new LinkedHashMap<>();
    Map<String, int[]> app = new LinkedHashMap<>();
    for (int i = 0; i < pod.size(); i++) {
      boolean isInit = i < initContainers;
      if (isInit && initDone) {
        continue;
      }
      for (ContainerDevice d : pod.container(i)) {
        if (isInit) {
          int[] u = init.computeIfAbsent(d.uuid(), k -> new int[3]);
          u[0] = Math.max(u[0], d.usedmem());
          u[1] = Math.max(u[1], d.usedcores());
          u[2] = 1;
        } else {
          int[] u = app.computeIfAbsent(d.uuid(), k -> new int[3]);
          u[0] = saturatedAdd(u[0], d.usedmem());
          u[1] = saturatedAdd(u[1], d.usedcores());
          u[2]++;
        }
      }
    }
    Map<String, DeviceUsage> out = new LinkedHashMap<>();
    for (String uuid : union(init, app)) {
      int[] a = init.getOrDefault(uuid, new int[3]);
      int[] b = app.getOrDefault(uuid, new int[3]);
      out.put(
          uuid,
          new DeviceUsage(
              Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.max(Math.max(a[2], b[2]), 1)));
    }
    return out;
  }

  private static Iterable<String> union(Map<String, int[]> a, Map<String, int[]> b) {
    var keys = new LinkedHashSet<String>(a.keySet());
    keys.addAll(b.keySet());
    return keys;
  }

  private static int saturatedAdd(int a, int b) {
    long s = (long) a + b;
    return s > Integer.MAX_VALUE
        ? Integer.MAX_VALUE
        : s < Integer.MIN_VALUE ? Integer.MIN_VALUE : (int) s;
  }
}
