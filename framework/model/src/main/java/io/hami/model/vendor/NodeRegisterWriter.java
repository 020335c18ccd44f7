package io.hami.model.vendor;

import io.hami.model.device.NodeDevice;
import java.util.List;
import java.util.Map;

/** Writes a vendor's register annotation (node agent side). */
@FunctionalInterface
public interface NodeRegisterWriter {

  /**
   * The node annotations announcing {@code devices}, byte-identical to the reference node plugin's.
   */
  Map<String, String> write(List<NodeDevice> devices);
}
