package io.hami.plugins.vgpu;

import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeLocal;

/**
 * The device views pinned on the NodeInfos of the snapshot, one per index ({@link
 * DeviceUsageIndex#node(NodeInfo)}): the first read of a NodeInfo keeps the index's view current
 * then, and every later read of the same NodeInfo gets that view.
 */
final class PinnedViews {

  private PinnedViews() {}

  /** A view pinned on a NodeInfo, with its node score kept beside it. */
  private record Pinned(DeviceUsageIndex index, NodeDevices view, float nodeScore) {
    Pinned(DeviceUsageIndex index, NodeDevices view) {
      this(index, view, view.nodeScore());
    }
  }

  private static final NodeLocal<Pinned> PINNED = NodeLocal.create("vgpu: pinned device view");

  /** {@link DeviceUsageIndex#node(NodeInfo)}. */
  static NodeDevices view(DeviceUsageIndex index, NodeInfo node) {
    if (node.generation() == 0) {
      return index.node(node.name());
    }
    Pinned p = node.local(PINNED);
    if (p != null && p.index() == index) {
      return p.view();
    }
    return pin(index, node).view();
  }

  /** {@link DeviceUsageIndex#nodeScore(NodeInfo)}. */
  static float nodeScore(DeviceUsageIndex index, NodeInfo node) {
    if (node.generation() == 0) {
      return index.node(node.name()).nodeScore();
    }
    Pinned p = node.local(PINNED);
    if (p == null || p.index() != index) {
      p = pin(index, node);
    }
    return p.nodeScore();
  }

  private static Pinned pin(DeviceUsageIndex index, NodeInfo node) {
    Pinned p = new Pinned(index, index.node(node.name()));
    node.setLocal(PINNED, p);
    return p;
  }
}
