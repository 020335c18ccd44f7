package io.hami.plugins.numa;

import io.hami.plugins.vgpu.DeviceFitter;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Counts how many of a pod's multi-device requests a node can keep on one NUMA node. */
final class NumaAlignment {
  private NumaAlignment() {}

  /** Result: requests that need alignment, and how many of them can be aligned. */
  record Count(int multi, int aligned) {
    boolean all() {
      return aligned == multi;
    }
  }

  static Count count(NodeDevices node, PodDeviceRequests r) {
    int multi = 0;
    int aligned = 0;
    List<? extends List<VendorRequest>> containers = r.requests().containers();
    for (List<VendorRequest> c : containers) {
      for (VendorRequest q : c) {
        if (q.nums() < 2) {
          continue;
        }
        multi++;
        Map<Integer, Integer> perNuma = new HashMap<>();
        for (DeviceUsage d : node.devices()) {
          if (DeviceFitter.usable(d, q, r.options())) {
            int n = perNuma.merge(d.numa(), 1, Integer::sum);
            if (n >= q.nums()) {
              aligned++;
              break;
            }
          }
        }
      }
    }
    return new Count(multi, aligned);
  }
}
