package io.hami.plugins.placement;

import io.hami.plugins.fgd.HamiWorkload;
import io.hami.plugins.fgd.TargetWorkload;
import io.hami.plugins.fgd.TaskShape;
import java.util.List;

/**
 * The target workload as seen by a node with a given kind of card (type, memory in MiB, cores).
 * Only FGD reads it; the other policies use {@link #none()}. Implementations are immutable.
 */
@FunctionalInterface
public interface CardWorkloads {

  TargetWorkload on(String type, int devmemMiB, int devcore);

  /** A placeholder for policies that do not read a target workload. */
  static CardWorkloads none() {
    return NoWorkload.INSTANCE;
  }

  /** The per-card views of a HAMi workload. */
  static CardWorkloads of(HamiWorkload w) {
    return w::on;
  }
}

enum NoWorkload implements CardWorkloads {
  INSTANCE;

  private static final TargetWorkload EMPTY =
      TargetWorkload.of(List.of(TaskShape.cpuOnly(1)), new long[] {1});

  @Override
  public TargetWorkload on(String type, int devmemMiB, int devcore) {
    return EMPTY;
  }
}
