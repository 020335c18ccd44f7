package io.hami.plugins.fgd;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The target workload M = {(m, p_m)}: the task shapes the cluster expects, with their popularity.
 *
 * <p>Popularities are kept as integer weights (pod counts) so that a node's fragment weighted by M
 * is an exact integer; divide by {@link #totalWeight()} for milli-GPU. Immutable; the arrays are
 * read on the scoring hot path and never exposed.
 */
public final class TargetWorkload {

  /** Share of pods the most popular shapes must cover, per the paper's artifact. */
  public static final double DEFAULT_COVERAGE = 0.95;

  final int[] cpu;
  final int[] milli;
  final int[] count;
  final long[] mask;
  final long[] weight;
  private final long totalWeight;
  private final List<TaskShape> shapes;

  private TargetWorkload(List<TaskShape> shapes, long[] weights) {
    int n = shapes.size();
    if (n == 0) {
      throw new IllegalArgumentException("a target workload needs at least one shape");
    }
    if (weights.length != n) {
      throw new IllegalArgumentException("got " + weights.length + " weights for " + n + " shapes");
    }
    this.shapes = List.copyOf(shapes);
    cpu = new int[n];
    milli = new int[n];
    count = new int[n];
    mask = new long[n];
    weight = weights.clone();
    long total = 0;
    for (int i = 0; i < n; i++) {
      TaskShape s = shapes.get(i);
      cpu[i] = s.cpuMilli();
      milli[i] = s.gpuMilli();
      count[i] = s.gpuCount();
      mask[i] = s.modelMask();
      if (weights[i] <= 0) {
        throw new IllegalArgumentException(
            "weight of shape " + i + " must be > 0, was " + weights[i]);
      }
      total = Math.addExact(total, weights[i]);
    }
    totalWeight = total;
  }

  /** A workload of the given shapes with integer popularity weights (e.g. pod counts). */
  public static TargetWorkload of(List<TaskShape> shapes, long[] weights) {
    return new TargetWorkload(shapes, weights);
  }

  /**
   * The most popular shapes of a pod population, as the paper computes M: count each exact shape
   * (its {@code label} tells apart shapes whose model sets are spelled differently), sort by count
   * descending (ties: CPU, then milli-GPU, then GPU count, then label, all descending), and keep
   * shapes until they cover {@code coverage} of the pods; the shape that crosses it is kept.
   *
   * @param pods one entry per pod
   * @param coverage share of pods to cover, in (0, 1]
   */
  public static TargetWorkload fromPopulation(Collection<LabeledShape> pods, double coverage) {
    if (!(coverage > 0 && coverage <= 1)) {
      throw new IllegalArgumentException("coverage must be in (0, 1], was " + coverage);
    }
    if (pods.isEmpty()) {
      throw new IllegalArgumentException("cannot derive a target workload from no pods");
    }
    Map<LabeledShape, long[]> counts = new HashMap<>();
    for (LabeledShape p : pods) {
      counts.computeIfAbsent(p, k -> new long[1])[0]++;
    }
    List<Map.Entry<LabeledShape, long[]>> sorted = new ArrayList<>(counts.entrySet());
    Comparator<Map.Entry<LabeledShape, long[]>> order =
        Comparator.<Map.Entry<LabeledShape, long[]>>comparingLong(e -> e.getValue()[0])
            .thenComparingInt(e -> e.getKey().shape().cpuMilli())
            .thenComparingInt(e -> e.getKey().shape().gpuMilli())
            .thenComparingInt(e -> e.getKey().shape().gpuCount())
            .thenComparing(e -> e.getKey().label());
    sorted.sort(order.reversed());
    List<TaskShape> kept = new ArrayList<>();
    List<Long> weights = new ArrayList<>();
    long cumulative = 0;
    double need = coverage * pods.size();
    for (Map.Entry<LabeledShape, long[]> e : sorted) {
      if (cumulative >= need) {
        break;
      }
      kept.add(e.getKey().shape());
      weights.add(e.getValue()[0]);
      cumulative += e.getValue()[0];
    }
    return new TargetWorkload(kept, weights.stream().mapToLong(Long::longValue).toArray());
  }

  /** A pod's shape with the label that tells apart model constraints (the raw model list). */
  public record LabeledShape(TaskShape shape, String label) {
    public LabeledShape {
      Objects.requireNonNull(shape, "shape");
      Objects.requireNonNull(label, "label");
    }
  }

  /** The shapes, in popularity order. */
  public List<TaskShape> shapes() {
    return shapes;
  }

  /** Popularity weight of shape {@code i}. */
  public long weight(int i) {
    return weight[i];
  }

  /** Sum of the weights; p_m = weight(m) / totalWeight. */
  public long totalWeight() {
    return totalWeight;
  }

  /** Number of shapes. */
  public int size() {
    return cpu.length;
  }

  @Override
  public String toString() {
    return "TargetWorkload{shapes=" + size() + ", weights=" + Arrays.toString(weight) + "}";
  }
}
