package io.hami.nodeagent.publish;

import com.google.common.collect.ImmutableList;
import io.hami.model.device.NodeDevice;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.config.OperatingMode;
import io.hami.nodeagent.health.Gpu;
import java.util.List;

/** Builds the register records from the GPUs and the config (spec §7.1). */
public final class RegisterRecords {
  private RegisterRecords() {}

  public static ImmutableList<NodeDevice> build(NodeAgentConfig config, List<Gpu> gpus) {
    ImmutableList.Builder<NodeDevice> out = ImmutableList.builder();
    boolean mig = config.mode() == OperatingMode.MIG;
    for (Gpu g : gpus) {
      out.add(
          NodeDevice.of(
              g.uuid(),
              g.index(),
              config.splitCount(),
              devmem(config, g.info().memoryMiB(), mig),
              mig ? 100 : (int) (100 * config.coreScaling()),
              type(g.info().model()),
              g.info().numaNode(),
              config.mode().wire(),
              g.healthy()));
    }
    return out.build();
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
