package io.hami.model.testing;

import io.hami.model.device.NodeDevice;
import java.util.ArrayList;
import java.util.List;

/** Named fake GPUs, as a node agent would register them. */
public final class FakeGpus {
  private FakeGpus() {}

  /** A GPU with a UUID derived from the node name and index. */
  public static NodeDevice gpu(
      String node, int index, String type, int memMiB, int split, int numa) {
    return NodeDevice.of(
        uuid(node, index), index, split, memMiB, 100, type, numa, NodeDevice.MODE_HAMI_CORE, true);
  }

  /** The UUID {@link #gpu} gives device {@code index} of {@code node}. */
  public static String uuid(String node, int index) {
    return "GPU-" + node + "-" + index;
  }

  /** An A100 40 GB, shared by up to 10 containers. */
  public static NodeDevice a100(String node, int index, int numa) {
    return gpu(node, index, "NVIDIA-A100-SXM4-40GB", 40960, 10, numa);
  }

  /** A T4 16 GB, shared by up to 10 containers. */
  public static NodeDevice t4(String node, int index, int numa) {
    return gpu(node, index, "NVIDIA-Tesla T4", 15360, 10, numa);
  }

  /** {@code n} A100s, the first half on NUMA node 0 and the rest on NUMA node 1. */
  public static List<NodeDevice> a100s(String node, int n) {
    List<NodeDevice> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(a100(node, i, i < (n + 1) / 2 ? 0 : 1));
    }
    return out;
  }

  /** {@code n} T4s on NUMA node 0. */
  public static List<NodeDevice> t4s(String node, int n) {
    List<NodeDevice> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(t4(node, i, 0));
    }
    return out;
  }
}
