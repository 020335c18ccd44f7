package io.hami.nodeagent.publish;

import com.google.common.collect.ImmutableList;
import io.hami.model.device.MigProfile;
import io.hami.model.device.NodeDevice;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.config.OperatingMode;
import io.hami.nodeagent.health.Gpu;
import java.util.List;
import java.util.Map;

/** Builds the register records from the GPUs and the config (spec §7.1). */
public final class RegisterRecords {
  private RegisterRecords() {}

  public static ImmutableList<NodeDevice> build(NodeAgentConfig config, List<Gpu> gpus) {
    return build(config, gpus, Map.of());
  }

  /**
   * The records with, in MIG mode, each GPU's dynamic MIG profiles ({@link MigProfiles#discover});
   * a GPU with profiles then counts one share per instance it can hold.
   */
  public static ImmutableList<NodeDevice> build(
      NodeAgentConfig config, List<Gpu> gpus, Map<String, ? extends List<MigProfile>> migProfiles) {
    ImmutableList.Builder<NodeDevice> out = ImmutableList.builder();
    boolean mig = config.mode() == OperatingMode.MIG;
    for (Gpu g : gpus) {
      List<MigProfile> profiles = mig ? migProfiles.get(g.uuid()) : null;
      out.add(
          new NodeDevice(
              g.uuid(),
              g.index(),
              profiles == null || profiles.isEmpty() ? config.splitCount() : slots(profiles),
              devmem(config, g.info().memoryMiB(), mig),
              mig ? 100 : (int) (100 * config.coreScaling()),
              type(g.info().model()),
              g.info().numaNode(),
              config.mode().wire(),
              profiles == null ? List.of() : profiles,
              g.healthy()));
    }
    return out.build();
  }

  /**
   * The share count of a dynamic MIG GPU: the most instances any of its registered profiles allows
   * (7 for {@code 1g.10gb} on an A100), as HAMi registers it.
   */
  static int slots(List<MigProfile> profiles) {
    int most = 0;
    for (MigProfile p : profiles) {
      most = Math.max(most, p.instanceCount());
    }
    return most;
  }

  static int devmem(NodeAgentConfig config, long totalMiB, boolean mig) {
    if (totalMiB < 0) {
      return (int) Math.min(config.preConfiguredMemoryMiB(), Integer.MAX_VALUE);
    }
    double scaled = mig ? totalMiB : Math.floor(totalMiB * config.memoryScaling());
    return (int) Math.min(scaled, Integer.MAX_VALUE);
  }

  /** {@code NVIDIA-<model>} unless the model already starts with NVIDIA. */
  public static String type(String model) {
    return model.startsWith("NVIDIA") ? model : "NVIDIA-" + model;
  }
}
