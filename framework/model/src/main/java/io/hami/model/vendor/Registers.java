package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceColon;
import io.hami.model.device.NodeDeviceJson;
import java.util.List;
import java.util.Map;

/** Register readers and writers for annotation-based vendors. */
final class Registers {

  static final String NO_DEVICE = "no device found on node";

  private Registers() {}

  enum Form {
    JSON,
    COLON,
    JSON_OR_COLON
  }

  static NodeRegisterReader reader(String key, Form form) {
    return node -> {
      String v = node.annotations().get(key);
      if (v == null) {
        return Decoded.err(key, "", "annotation " + key + " not found on node " + node.name());
      }
      Decoded<List<NodeDevice>> d =
          switch (form) {
            case JSON -> NodeDeviceJson.decode(v);
            case COLON -> NodeDeviceColon.decode(v);
            // ≤ v2.7 plugins write the colon form; JSON always starts with '[' (or is null)
            case JSON_OR_COLON ->
                looksLikeJson(v) ? NodeDeviceJson.decode(v) : NodeDeviceColon.decode(v);
          };
      d = d.within(key);
      if (d instanceof Decoded.Ok<List<NodeDevice>> ok && ok.value().isEmpty()) {
        return Decoded.err(key, v, NO_DEVICE + " " + node.name());
      }
      return d;
    };
  }

  static boolean looksLikeJson(String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return c == '[' || c == '{' || v.startsWith("null", i);
      }
    }
    return false;
  }

  static NodeRegisterWriter writer(String key, Form form) {
    return devices ->
        Map.of(
            key,
            form == Form.COLON ? NodeDeviceColon.encode(devices) : NodeDeviceJson.encode(devices));
  }
}
