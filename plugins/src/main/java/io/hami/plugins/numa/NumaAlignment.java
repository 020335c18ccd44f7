package io.hami.plugins.numa;

import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeLocal;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.PodDeviceRequests;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts how many of a pod's multi-device requests a node can keep on one NUMA node: a request of n
 * devices can when one NUMA node has n devices usable for it.
 */
final class NumaAlignment {

  /**
   * The pod's requests for two or more devices, and so in need of alignment; derived once a pod.
   */
  static final class Multi {
    private final PodDeviceRequests source;
    private final NumaCounts.Usable[] keys;
    private final int[] nums;

    private Multi(PodDeviceRequests source, NumaCounts.Usable[] keys, int[] nums) {
      this.source = source;
      this.keys = keys;
      this.nums = nums;
    }

    static Multi of(PodDeviceRequests r) {
      List<NumaCounts.Usable> keys = new ArrayList<>();
      List<Integer> nums = new ArrayList<>();
      for (List<VendorRequest> c : r.requests().containers()) {
        for (VendorRequest q : c) {
          if (q.nums() >= 2) {
            keys.add(NumaCounts.Usable.of(q, r.options()));
            nums.add(q.nums());
          }
        }
      }
      return new Multi(
          r,
          keys.toArray(new NumaCounts.Usable[0]),
          nums.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The requests these were derived from. */
    PodDeviceRequests source() {
      return source;
    }

    /** How many requests need alignment. */
    int size() {
      return keys.length;
    }
  }

  private static final NodeLocal<NumaCounts> COUNTS =
      NodeLocal.create("numa: usable devices per NUMA node");

  private NumaAlignment() {}

  /** How many of the pod's multi-device requests the view can keep on one NUMA node. */
  static int aligned(NodeDevices view, Multi m) {
    int aligned = 0;
    for (int i = 0; i < m.keys.length; i++) {
      if (NumaCounts.mostOnOneNuma(view, m.keys[i]) >= m.nums[i]) {
        aligned++;
      }
    }
    return aligned;
  }

  /**
   * {@link #aligned(NodeDevices, Multi)} for the view pinned on {@code node}, with the counts kept
   * on the NodeInfo for that view: computed once per view and request shape.
   */
  static int aligned(NodeInfo node, NodeDevices view, Multi m) {
    NumaCounts kept = node.local(COUNTS);
    NumaCounts counts = kept == null ? NumaCounts.NONE : kept;
    int aligned = 0;
    for (int i = 0; i < m.keys.length; i++) {
      int most = counts.get(view, m.keys[i]);
      if (most == NumaCounts.NOT_KEPT) {
        most = NumaCounts.mostOnOneNuma(view, m.keys[i]);
        counts = counts.with(view, m.keys[i], most);
      }
      if (most >= m.nums[i]) {
        aligned++;
      }
    }
    if (counts != kept && counts != NumaCounts.NONE) {
      node.setLocal(COUNTS, counts);
    }
    return aligned;
  }
}
