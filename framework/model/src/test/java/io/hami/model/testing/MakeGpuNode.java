package io.hami.model.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.hami.framework.testing.MakeNode;
import io.hami.model.Annotations;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceColon;
import io.hami.model.device.NodeDeviceJson;
import java.util.ArrayList;
import java.util.List;

/**
 * A node that registers GPUs the way a node agent does: {@code
 * MakeGpuNode.named("n1").gpus(FakeGpus.a100s("n1", 8)).obj()} writes {@code
 * hami.io/node-nvidia-register} with the production encoder and sets allocatable {@code
 * nvidia.com/gpu} to the number of shares.
 */
public final class MakeGpuNode {
  private final String name;
  private final MakeNode node;
  private final List<NodeDevice> gpus = new ArrayList<>();
  private boolean colon;
  private boolean allocatable = true;

  private MakeGpuNode(String name) {
    this.name = name;
    this.node = MakeNode.named(name).capacity("64", "256Gi", 110);
  }

  public static MakeGpuNode named(String name) {
    return new MakeGpuNode(name);
  }

  public MakeGpuNode gpus(List<NodeDevice> devices) {
    gpus.addAll(devices);
    return this;
  }

  public MakeGpuNode gpu(NodeDevice device) {
    gpus.add(device);
    return this;
  }

  /** Writes the pre-v2.8 colon form instead of JSON. */
  public MakeGpuNode colonForm() {
    colon = true;
    return this;
  }

  /** Leaves allocatable {@code nvidia.com/gpu} out, as before the device plugin registers. */
  public MakeGpuNode withoutAllocatable() {
    allocatable = false;
    return this;
  }

  public MakeGpuNode annotation(String key, String value) {
    node.annotation(key, value);
    return this;
  }

  /** Cordons devices ({@code hami.io/device-cordon}). */
  public MakeGpuNode cordon(String... uuids) {
    node.annotation(Annotations.DEVICE_CORDON, String.join(",", uuids));
    return this;
  }

  public MakeGpuNode label(String key, String value) {
    node.label(key, value);
    return this;
  }

  public String name() {
    return name;
  }

  public Node obj() {
    if (!gpus.isEmpty()) {
      node.annotation(
          Annotations.NODE_NVIDIA_REGISTER,
          colon ? NodeDeviceColon.encode(gpus) : NodeDeviceJson.encode(gpus));
      if (allocatable) {
        int shares = gpus.stream().mapToInt(NodeDevice::count).sum();
        node.resource("nvidia.com/gpu", Integer.toString(shares));
      }
    }
    return node.obj();
  }
}
