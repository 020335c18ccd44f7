package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.hami.model.Decoded;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceColon;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.resource.RequestRule;
import io.hami.model.vendor.VendorKeys;
import java.util.List;

/**
 * A device vendor the scheduler places: its annotation keys, how its register annotation is
 * written, and how container resources become requests.
 *
 * @param keys annotation keys
 * @param rule request derivation
 * @param json whether the register annotation is JSON (NVIDIA since v2.8); colon-form values are
 *     still read for older node agents
 */
public record GpuVendor(VendorKeys keys, RequestRule rule, boolean json) {
  public GpuVendor {
    requireNonNull(keys, "keys");
    requireNonNull(rule, "rule");
  }

  /** The vendor keyword ({@code NVIDIA}). */
  public String word() {
    return keys.commonWord();
  }

  /** Decodes a register annotation in either form (JSON starts with {@code [}). */
  public Decoded<List<NodeDevice>> decodeRegister(String value) {
    String v = value.strip();
    if (v.startsWith("[")) {
      return NodeDeviceJson.decode(v);
    }
    return NodeDeviceColon.decode(value);
  }
}
