package io.hami.plugins.numa;

import io.hami.plugins.vgpu.DeviceFitter;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Counts how many of a pod's multi-device requests a node can keep on one NUMA node. */
final class NumaAlignment {
  private NumaAlignment() {}

  /** How many of the pod's requests ask for two or more devices, and so need alignment. */
  static int multi(PodDeviceRequests r) {
    int multi = 0;
    List<? extends List<VendorRequest>> containers = r.requests().containers();
    for (int ci = 0; ci < containers.size(); ci++) {
      List<VendorRequest> c = containers.get(ci);
      for (int qi = 0; qi < c.size(); qi++) {
        if (c.get(qi).nums() >= 2) {
          multi++;
        }
      }
    }
    return multi;
  }

  /** How many of the pod's multi-device requests the node can keep on one NUMA node. */
  // Called per node in Score: index loops and a bit set instead of iterators and a map per
  // request, and a count instead of a result object, so that scoring makes no garbage here.
  static int aligned(NodeDevices node, PodDeviceRequests r) {
    int aligned = 0;
    List<? extends List<VendorRequest>> containers = r.requests().containers();
    List<DeviceUsage> devices = node.devices();
    for (int ci = 0; ci < containers.size(); ci++) {
      List<VendorRequest> c = containers.get(ci);
      for (int qi = 0; qi < c.size(); qi++) {
        VendorRequest q = c.get(qi);
        if (q.nums() >= 2 && alignable(devices, q, r.options())) {
          aligned++;
        }
      }
    }
    return aligned;
  }

  /** Whether some NUMA node has at least {@code q.nums()} devices usable for q. */
  private static boolean alignable(List<DeviceUsage> devices, VendorRequest q, PodGpuOptions opts) {
    int n = devices.size();
    if (n > Long.SIZE) {
      return alignableByMap(devices, q, opts);
    }
    long usable = 0;
    for (int i = 0; i < n; i++) {
      DeviceUsage d = devices.get(i);
      if (!DeviceFitter.usable(d, q, opts)) {
        continue;
      }
      usable |= 1L << i;
      // Count the usable devices so far on d's NUMA node, d included.
      int numa = d.numa();
      int same = 0;
      for (long rest = usable; rest != 0; rest &= rest - 1) {
        if (devices.get(Long.numberOfTrailingZeros(rest)).numa() == numa) {
          same++;
        }
      }
      if (same >= q.nums()) {
        return true;
      }
    }
    return false;
  }

  private static boolean alignableByMap(
      List<DeviceUsage> devices, VendorRequest q, PodGpuOptions opts) {
    Map<Integer, Integer> perNuma = new HashMap<>();
    for (DeviceUsage d : devices) {
      if (DeviceFitter.usable(d, q, opts) && perNuma.merge(d.numa(), 1, Integer::sum) >= q.nums()) {
        return true;
      }
    }
    return false;
  }
}
