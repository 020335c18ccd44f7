package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.device.NodeDevice;
import java.util.List;

/** Reads a vendor's devices from a node (scheduler side, "GetNodeDevices"). */
@FunctionalInterface
public interface NodeRegisterReader {

  /**
   * The node's devices of this vendor.
   *
   * @return the devices, or an error naming the annotation (or capacity) and the bad value; a node
   *     that registered no device is an error too ({@code no device found on node})
   */
  Decoded<List<NodeDevice>> read(NodeFacts node);
}
