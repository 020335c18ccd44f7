package io.hami.plugins.vgpu;

import io.hami.model.device.MigPlacement;
import io.hami.model.device.NodeDevice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The dynamic MIG placements held on one node's GPUs, one element per holding pod, and how they
 * overlay the node's device view. Not thread-safe: the owning index guards it with its lock.
 */
final class MigHoldings {

  private final Map<String, List<MigPlacement>> byDevice = new HashMap<>();

  /** Adds ({@code sign > 0}) or removes a pod's placements on device {@code id}. */
  void apply(String id, List<MigPlacement> placements, int sign) {
    if (placements.isEmpty()) {
      return;
    }
    List<MigPlacement> held = byDevice.computeIfAbsent(id, k -> new ArrayList<>());
    for (MigPlacement at : placements) {
      if (sign > 0) {
        held.add(at);
      } else {
        held.remove(at);
      }
    }
    if (held.isEmpty()) {
      byDevice.remove(id);
    }
  }

  /** {@code device} with the placements held on it; the same object when none is held. */
  DeviceUsage overlay(DeviceUsage device) {
    return overlay(device, List.of());
  }

  /** {@link #overlay(DeviceUsage)} as if the placements {@code except} were not held. */
  DeviceUsage overlay(DeviceUsage device, List<MigPlacement> except) {
    List<MigPlacement> held = byDevice.get(device.id());
    if (held != null && !except.isEmpty()) {
      held = new ArrayList<>(held);
      for (MigPlacement at : except) {
        held.remove(at);
      }
    }
    if (held == null || held.isEmpty()) {
      return device;
    }
    DeviceUsage v = device.withMig(device.migProfiles(), held);
    // A MIG instance on a device the node agent shares through hami-core: the two views of the
    // device disagree, so nothing more goes there (protocol §8.3).
    if (!NodeDevice.MODE_MIG.equals(v.mode())) {
      v = v.withState(false, v.cordoned());
    }
    return v;
  }
}
