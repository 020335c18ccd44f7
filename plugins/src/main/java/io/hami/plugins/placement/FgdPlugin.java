package io.hami.plugins.placement;

import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.PluginRegistration;
import io.hami.plugins.fgd.FgdArgs;
import io.hami.plugins.fgd.HamiWorkload;
import io.hami.plugins.fgd.RecentShapes;
import io.hami.plugins.fgd.TargetWorkloadFile;
import io.hami.plugins.vgpu.DeviceUsageIndex;
import io.hami.plugins.vgpu.SharedGpuState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@code fgd} plugin: fragmentation gradient descent over HAMi's memory and core requests.
 * Scores each node by how little the placement grows its fragment against a target workload (a
 * card's free share being the smaller of its free memory and free cores fractions), and has {@code
 * vgpu} place the pod on the GPU that FGD chose. The target workload comes from a configured pod
 * list, or is learned from the pods seen recently.
 */
public final class FgdPlugin {

  public static final String NAME = "fgd";

  private FgdPlugin() {}

  public static PlacementPlugin create(
      FgdArgs args, FrameworkHandle handle, SharedGpuState shared) {
    DeviceUsageIndex index = shared.index(handle);
    if (!args.targetWorkloadFile().isBlank()) {
      HamiWorkload fixed;
      try {
        fixed =
            HamiWorkload.fromPopulation(
                TargetWorkloadFile.read(Path.of(args.targetWorkloadFile())), args.coverage());
      } catch (IOException e) {
        throw new IllegalArgumentException("args.targetWorkloadFile: " + e.getMessage(), e);
      }
      return withWorkload(fixed, handle, index);
    }
    RecentShapes recent = new RecentShapes(args.window(), args.refreshEvery(), args.coverage());
    Supplier<CardWorkloads> current =
        new Supplier<>() {
          private @Nullable HamiWorkload seen;
          private CardWorkloads cards = CardWorkloads.none();

          @Override
          public synchronized CardWorkloads get() {
            HamiWorkload w = recent.current();
            if (w != null && w != seen) {
              seen = w;
              cards = CardWorkloads.of(w);
            }
            return cards;
          }
        };
    return new PlacementPlugin(
        NAME,
        PaperPolicy.FGD,
        handle,
        index,
        new PlacementPlugin.Workloads(current, recent::add),
        0);
  }

  /** An FGD plugin with a fixed target workload (as the simulator uses the trace's). */
  public static PlacementPlugin withWorkload(
      HamiWorkload workload, FrameworkHandle handle, DeviceUsageIndex index) {
    CardWorkloads cards = CardWorkloads.of(workload);
    return new PlacementPlugin(
        NAME, PaperPolicy.FGD, handle, index, new PlacementPlugin.Workloads(() -> cards, null), 0);
  }

  public static PluginRegistration<FgdArgs> registration(SharedGpuState shared) {
    return PluginRegistration.of(
        NAME, FgdArgs.class, FgdArgs.DEFAULTS, (args, handle) -> create(args, handle, shared));
  }
}
