package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

/**
 * What the index counts for a pod, with the view of that node as it would be without the pod, both
 * read at one instant ({@link DeviceUsageIndex#countedWithout}).
 *
 * @param uid the pod
 * @param counted what the index counts for the pod
 * @param nodeWithout the view of {@code counted.node()} less the pod's usage
 */
public record CountedWithout(
    String uid, DeviceUsageIndex.Counted counted, NodeDevices nodeWithout) {
  public CountedWithout {
    requireNonNull(uid, "uid");
    requireNonNull(counted, "counted");
    requireNonNull(nodeWithout, "nodeWithout");
  }

  /** The node the pod's usage is counted on. */
  public String node() {
    return counted.node();
  }
}
