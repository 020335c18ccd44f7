package io.hami.plugins.fgd;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A target workload in HAMi's units: shapes with popularity weights. Because a shape's share of a
 * card depends on the card's memory and core capacity and its type constraint on the card's type,
 * the workload is turned into a {@link TargetWorkload} per kind of card ({@link #on}), once per
 * kind, and cached. Immutable and thread-safe.
 */
public final class HamiWorkload {

  /** The model bit of the node a {@link #on} workload is evaluated against. */
  public static final long NODE_MODEL = 1L;

  private static final long OTHER_MODEL = 2L;

  private final List<HamiShape> shapes;
  private final long[] weights;
  private final Map<DeviceKind, TargetWorkload> byKind = new ConcurrentHashMap<>();

  private record DeviceKind(String type, int devmem, int devcore) {}

  private HamiWorkload(List<HamiShape> shapes, long[] weights) {
    if (shapes.isEmpty() || shapes.size() != weights.length) {
      throw new IllegalArgumentException(
          "a workload needs shapes and as many weights; got "
              + shapes.size()
              + " and "
              + weights.length);
    }
    for (long w : weights) {
      if (w <= 0) {
        throw new IllegalArgumentException("weights must be > 0, got " + w);
      }
    }
    this.shapes = List.copyOf(shapes);
    this.weights = weights.clone();
  }

  public static HamiWorkload of(List<HamiShape> shapes, long[] weights) {
    return new HamiWorkload(shapes, weights);
  }

  /**
   * The most popular shapes of a pod population covering {@code coverage} of it (the shape that
   * crosses it is kept), as the FGD paper derives its target workload.
   */
  public static HamiWorkload fromPopulation(Collection<HamiShape> pods, double coverage) {
    if (!(coverage > 0 && coverage <= 1)) {
      throw new IllegalArgumentException("coverage must be in (0, 1], was " + coverage);
    }
    if (pods.isEmpty()) {
      throw new IllegalArgumentException("cannot derive a target workload from no pods");
    }
    Map<HamiShape, long[]> counts = new HashMap<>();
    for (HamiShape s : pods) {
      counts.computeIfAbsent(s, k -> new long[1])[0]++;
    }
    List<Map.Entry<HamiShape, long[]>> sorted = new ArrayList<>(counts.entrySet());
    Comparator<Map.Entry<HamiShape, long[]>> order =
        Comparator.<Map.Entry<HamiShape, long[]>>comparingLong(e -> e.getValue()[0])
            .thenComparingInt(e -> e.getKey().cpuMilli())
            .thenComparingInt(e -> e.getKey().cores())
            .thenComparingInt(e -> e.getKey().memPercent())
            .thenComparingInt(e -> e.getKey().memMiB())
            .thenComparingInt(e -> e.getKey().gpus())
            .thenComparing(e -> e.getKey().label());
    sorted.sort(order.reversed());
    List<HamiShape> kept = new ArrayList<>();
    List<Long> w = new ArrayList<>();
    long cumulative = 0;
    double need = coverage * pods.size();
    for (Map.Entry<HamiShape, long[]> e : sorted) {
      if (cumulative >= need) {
        break;
      }
      kept.add(e.getKey());
      w.add(e.getValue()[0]);
      cumulative += e.getValue()[0];
    }
    return new HamiWorkload(kept, w.stream().mapToLong(Long::longValue).toArray());
  }

  public List<HamiShape> shapes() {
    return shapes;
  }

  public long weight(int i) {
    return weights[i];
  }

  /**
   * The workload as seen by a node whose cards are of {@code type} with {@code devmemMiB} memory
   * and {@code devcore} cores: each shape's share of such a card, and shapes whose type constraint
   * excludes the card marked as needing another model. Evaluate it with model {@link #NODE_MODEL}.
   */
  public TargetWorkload on(String type, int devmemMiB, int devcore) {
    return byKind.computeIfAbsent(
        new DeviceKind(type, devmemMiB, devcore),
        k -> {
          List<TaskShape> task = new ArrayList<>(shapes.size());
          for (HamiShape s : shapes) {
            int d = s.shareOn(k.devmem(), k.devcore());
            task.add(
                new TaskShape(
                    s.cpuMilli(), d, d == 0 ? 0 : s.gpus(), s.allows(k.type()) ? 0 : OTHER_MODEL));
          }
          return TargetWorkload.of(task, weights);
        });
  }
}
