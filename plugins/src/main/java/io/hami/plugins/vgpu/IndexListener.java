package io.hami.plugins.vgpu;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ClusterStateListener;

/** The informer hook that keeps a {@link DeviceUsageIndex} current. */
final class IndexListener implements ClusterStateListener {

  private final DeviceUsageIndex index;

  IndexListener(DeviceUsageIndex index) {
    this.index = index;
  }

  @Override
  public void onNodeAdd(Node node) {
    index.upsertNode(node);
  }

  @Override
  public void onNodeUpdate(Node oldNode, Node newNode) {
    index.upsertNode(newNode);
  }

  @Override
  public void onNodeDelete(Node node) {
    index.deleteNode(node.getMetadata().getName());
  }

  @Override
  public void onPodAdd(Pod pod) {
    index.upsertPod(pod);
  }

  @Override
  public void onPodUpdate(Pod oldPod, Pod newPod) {
    index.upsertPod(newPod);
  }

  @Override
  public void onPodDelete(Pod pod) {
    index.deletePod(pod);
  }
}
